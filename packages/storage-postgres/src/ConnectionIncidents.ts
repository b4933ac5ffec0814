import type { SqlClient } from "@effect/sql"
import type { AccountId, ConnectionFinding, OutboxEvent } from "@herald/core"
import { DateTime, Effect } from "effect"
import { writeEvents } from "./OutboxWrites.js"

/**
 * The writes the checker and a failed delivery share, inside the caller's transaction: the
 * status guard makes the first of them turn the account needs_reconnect and write the event, and
 * the one-open-per-(account, kind) index makes them open one incident between them.
 */

/** Turns an active account needs_reconnect with its event; false when it was not active. */
export const markDead = (sql: SqlClient.SqlClient, accountId: AccountId, event: OutboxEvent) =>
  Effect.gen(function*() {
    const rows = yield* sql`UPDATE social_accounts SET status = 'needs_reconnect' WHERE id = ${accountId} AND status = 'active' RETURNING id`
    if (rows.length === 0) return false
    yield* writeEvents(sql, [event])
    return true
  })

/** Opens the incident, or touches the open one of its kind (its detail as now seen). Nothing for a disconnected or removed account. */
export const openIncident = (
  sql: SqlClient.SqlClient,
  accountId: AccountId,
  finding: ConnectionFinding & { readonly id: string },
  at: DateTime.Utc
) => {
  const when = DateTime.formatIso(at)
  return sql`
    INSERT INTO connection_issues (id, project_id, account_id, kind, severity, detail, action, opened_at, last_checked_at)
    SELECT ${finding.id}, project_id, id, ${finding.kind}, ${finding.severity}, ${finding.detail},
      ${JSON.stringify(finding.action)}::jsonb, ${when}, ${when}
    FROM social_accounts WHERE id = ${accountId} AND status <> 'disconnected'
    ON CONFLICT (account_id, kind) WHERE resolved_at IS NULL DO UPDATE SET
      severity = EXCLUDED.severity, detail = EXCLUDED.detail, action = EXCLUDED.action,
      last_checked_at = EXCLUDED.last_checked_at`
}

