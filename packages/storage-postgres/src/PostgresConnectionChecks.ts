import { SqlClient } from "@effect/sql"
import {
  type AccountId,
  ConnectionChecks,
  ConnectionIssue,
  ConnectionIssueAction,
  ConnectionIssueKind,
  ConnectionIssueSeverity,
  type DeliveryId,
  type ProjectId,
  reconnectKinds,
  traced
} from "@herald/core"
import { DateTime, Effect, Layer, Schema } from "effect"
import { ChangeNotices } from "./ChangeNotices.js"
import { markDead, openIncident } from "./ConnectionIncidents.js"
import { orDieInfra } from "./Infra.js"
import { accountFromRow, type AccountRow } from "./Rows.js"
import { Wakeups } from "./Wakeups.js"

interface IssueRow {
  readonly id: string
  readonly project_id: string
  readonly account_id: string
  readonly kind: string
  readonly severity: string
  readonly detail: string
  readonly action: unknown
  readonly opened_at: Date | string
  readonly last_checked_at: Date | string
  readonly resolved_at: Date | string | null
}

const decodeIssueColumns = Schema.decodeUnknown(Schema.Struct({
  kind: ConnectionIssueKind,
  severity: ConnectionIssueSeverity,
  action: ConnectionIssueAction
}))

const issueFromRow = (row: IssueRow) =>
  Effect.map(decodeIssueColumns(row), (valid) =>
    new ConnectionIssue({
      id: row.id,
      projectId: row.project_id as ProjectId,
      accountId: row.account_id as AccountId,
      kind: valid.kind,
      severity: valid.severity,
      detail: row.detail,
      action: valid.action,
      openedAt: DateTime.unsafeMake(row.opened_at),
      lastCheckedAt: DateTime.unsafeMake(row.last_checked_at),
      resolvedAt: row.resolved_at === null ? null : DateTime.unsafeMake(row.resolved_at)
    }, true))

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups
  const notices = yield* ChangeNotices

  // An account gets its schedule row the first time a claim looks for it: due at once.
  const schedule = (now: string, projectId: ProjectId | null) => sql`
    INSERT INTO connection_checks (account_id, next_check_at)
    SELECT a.id, ${now}::timestamptz FROM social_accounts a
    WHERE a.status <> 'disconnected' ${projectId === null ? sql`` : sql`AND a.project_id = ${projectId}`}
      AND NOT EXISTS (SELECT 1 FROM connection_checks c WHERE c.account_id = a.id)
    ON CONFLICT (account_id) DO NOTHING`

  // SKIP LOCKED, then the lease columns re-checked on the locked row: two claimers never both take one account.
  const claim = (
    now: string,
    leaseMillis: number,
    worker: string,
    due: boolean,
    projectId: ProjectId | null,
    limit: number,
    except: ReadonlyArray<AccountId> = []
  ) =>
    sql<AccountRow>`
      UPDATE connection_checks c
      SET lease_owner = ${worker}, lease_expires_at = ${now}::timestamptz + ${leaseMillis} * interval '1 millisecond'
      FROM (
        SELECT c2.account_id FROM connection_checks c2 JOIN social_accounts a2 ON a2.id = c2.account_id
        WHERE a2.status <> 'disconnected'
          ${projectId === null ? sql`` : sql`AND a2.project_id = ${projectId}`}
          ${except.length === 0 ? sql`` : sql`AND NOT (c2.account_id = ANY(${except}::uuid[]))`}
          ${due ? sql`AND c2.next_check_at <= ${now}::timestamptz` : sql``}
          AND (c2.not_before IS NULL OR c2.not_before <= ${now}::timestamptz)
          AND (c2.lease_expires_at IS NULL OR c2.lease_expires_at <= ${now}::timestamptz)
        ORDER BY c2.next_check_at, c2.account_id
        LIMIT ${limit}
        FOR UPDATE OF c2 SKIP LOCKED
      ) free, social_accounts a
      WHERE c.account_id = free.account_id AND a.id = c.account_id
      RETURNING a.id, a.project_id, a.platform, a.username, a.route, a.status`.pipe(
      Effect.flatMap(Effect.forEach(accountFromRow))
    )

  return ConnectionChecks.of({
    claimDue: traced("ConnectionChecks.claimDue")(({ leaseMillis, limit, now, worker }) => {
      const at = DateTime.formatIso(now)
      return orDieInfra(Effect.zipRight(schedule(at, null), claim(at, leaseMillis, worker, true, null, limit)))
    }),
    claimProject: traced("ConnectionChecks.claimProject")((projectId, { leaseMillis, now, worker }, except) => {
      const at = DateTime.formatIso(now)
      const busy = sql<{ readonly busy: number }>`
        SELECT count(*)::int AS busy FROM connection_checks c JOIN social_accounts a ON a.id = c.account_id
        WHERE a.project_id = ${projectId} AND a.status <> 'disconnected' AND c.lease_owner <> ${worker}
          AND c.lease_expires_at > ${at}::timestamptz AND (c.not_before IS NULL OR c.not_before <= ${at}::timestamptz)
          ${except.length === 0 ? sql`` : sql`AND NOT (c.account_id = ANY(${except}::uuid[]))`}`
      return orDieInfra(Effect.gen(function*() {
        yield* schedule(at, projectId)
        const claimed = yield* claim(at, leaseMillis, worker, false, projectId, 10_000, except)
        const [row] = yield* busy
        return { claimed, busy: row?.busy ?? 0 }
      }))
    }),
    record: traced("ConnectionChecks.record")(function*(outcome) {
      const { account, at } = outcome
      const when = DateTime.formatIso(at)
      const changed = yield* orDieInfra(sql.withTransaction(Effect.gen(function*() {
        const dead = outcome.deadLogin === null ? false : yield* markDead(sql, account.id, outcome.deadLogin)
        for (const finding of outcome.findings) yield* openIncident(sql, account.id, finding, at)
        let revived = false
        if (outcome.answered) {
          const kinds = outcome.findings.map((finding) => finding.kind)
          const resolved = yield* sql<{ readonly kind: string }>`
            UPDATE connection_issues SET resolved_at = ${when}, last_checked_at = ${when}
            WHERE account_id = ${account.id} AND resolved_at IS NULL AND NOT (kind = ANY(${kinds}::text[]))
            RETURNING kind`
          // The login the checker had found dead works again (refreshed, or restored on the platform).
          if (resolved.some((row) => row.kind === "login_dead")) {
            const rows = yield* sql`UPDATE social_accounts SET status = 'active' WHERE id = ${account.id} AND status = 'needs_reconnect' RETURNING id`
            revived = rows.length > 0
          }
        }
        if (outcome.report !== undefined) yield* sql`UPDATE social_accounts SET report = ${JSON.stringify(outcome.report)}::jsonb WHERE id = ${account.id}`
        yield* sql`
          UPDATE connection_checks SET next_check_at = ${DateTime.formatIso(outcome.nextCheckAt)},
            not_before = ${outcome.notBefore === null ? null : DateTime.formatIso(outcome.notBefore)},
            lease_owner = NULL, lease_expires_at = NULL
          WHERE account_id = ${account.id} AND lease_owner = ${outcome.worker}`
        return { dead, revived }
      })))
      if (changed.dead || changed.revived || outcome.report !== undefined) notices.changed("accounts", account.projectId)
      if (changed.dead) yield* wakeups.signal("outbox")
      return changed.dead
    }),
    release: traced("ConnectionChecks.release")((accountId, worker) =>
      orDieInfra(sql`
        UPDATE connection_checks SET lease_owner = NULL, lease_expires_at = NULL
        WHERE account_id = ${accountId} AND lease_owner = ${worker}`).pipe(Effect.asVoid)
    ),
    listOpen: traced("ConnectionChecks.listOpen")((projectId) =>
      orDieInfra(sql<IssueRow>`
        SELECT id, project_id, account_id, kind, severity, detail, action, opened_at, last_checked_at, resolved_at
        FROM connection_issues WHERE project_id = ${projectId} AND resolved_at IS NULL
        ORDER BY opened_at, id`.pipe(Effect.flatMap(Effect.forEach(issueFromRow))))
    ),
    authFailures: traced("ConnectionChecks.authFailures")((projectId, accountId) =>
      orDieInfra(sql<{ readonly id: DeliveryId }>`
        SELECT id FROM deliveries
        WHERE project_id = ${projectId} AND account_id = ${accountId} AND status = 'failed'
          AND error->>'category' = 'auth_expired'
        ORDER BY created_at, id`.pipe(Effect.map((rows) => rows.map((row) => row.id))))
    ),
    reconnected: traced("ConnectionChecks.reconnected")((accountId, at) => {
      const when = DateTime.formatIso(at)
      return orDieInfra(sql.withTransaction(Effect.zipRight(
        sql`
          UPDATE connection_issues SET resolved_at = ${when}, last_checked_at = ${when}
          WHERE account_id = ${accountId} AND resolved_at IS NULL AND kind = ANY(${reconnectKinds}::text[])`,
        sql`
          INSERT INTO connection_checks (account_id, next_check_at) VALUES (${accountId}, ${when})
          ON CONFLICT (account_id) DO UPDATE SET next_check_at = EXCLUDED.next_check_at, not_before = NULL`
      ))).pipe(Effect.asVoid)
    })
  })
})

/** ConnectionChecks over connection_checks, connection_issues and social_accounts. */
export const PostgresConnectionChecks = Layer.effect(ConnectionChecks, make)
