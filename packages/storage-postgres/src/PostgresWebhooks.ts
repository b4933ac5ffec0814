import { SqlClient } from "@effect/sql"
import {
  type ClaimedSend,
  OutboxQueue,
  type OutboxSendOutcome,
  type SigningSecrets,
  traced,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpointNotFound,
  WebhookEndpoints
} from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { CredentialsCipher } from "./CredentialsCipher.js"
import { orDieInfra } from "./Infra.js"
import { eventFromRow, type EventRow } from "./Rows.js"
import { Wakeups } from "./Wakeups.js"

interface EndpointRow {
  readonly id: string
  readonly project_id: string
  readonly url: string
  readonly kinds: ReadonlyArray<string>
  readonly enabled: boolean
  readonly consecutive_failures: number
  readonly last_error: string | null
  readonly created_at: Date
}

const endpointFromRow = (row: EndpointRow) =>
  Schema.decodeUnknown(WebhookEndpoint)({
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    kinds: row.kinds,
    enabled: row.enabled,
    consecutiveFailures: row.consecutive_failures,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString()
  })

/** The sealed secret columns, as the claim and signingTarget read them. */
interface SecretColumns {
  readonly secret: string
  readonly previous_secret: string | null
  readonly previous_secret_expires_at: Date | null
}

interface ClaimRow extends EventRow, SecretColumns {
  readonly send_id: string
  readonly attempts: number
  readonly endpoint_id: string
  readonly url: string
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cipher = yield* CredentialsCipher
  const wakeups = yield* Wakeups

  // Both secrets are sealed with the endpoint id as associated data, so a rotation moves the
  // current one into the previous column without opening it.
  const opened = (row: SecretColumns, endpointId: string): SigningSecrets => ({
    current: Redacted.make(cipher.open(row.secret, endpointId)),
    previous: row.previous_secret === null || row.previous_secret_expires_at === null
      ? Option.none()
      : Option.some({
        secret: Redacted.make(cipher.open(row.previous_secret, endpointId)),
        until: DateTime.unsafeMake(row.previous_secret_expires_at)
      })
  })

  const endpoints = WebhookEndpoints.of({
    create: traced("WebhookEndpoints.create")((endpoint, secret) =>
      orDieInfra(sql`INSERT INTO webhook_endpoints ${
        sql.insert({
          id: endpoint.id,
          project_id: endpoint.projectId,
          url: endpoint.url,
          secret: cipher.seal(Redacted.value(secret), endpoint.id),
          kinds: endpoint.kinds,
          enabled: endpoint.enabled,
          consecutive_failures: endpoint.consecutiveFailures,
          last_error: endpoint.lastError,
          created_at: DateTime.formatIso(endpoint.createdAt)
        })
      }`)
    ),
    list: traced("WebhookEndpoints.list")((projectId) =>
      orDieInfra(
        sql<EndpointRow>`
          SELECT id, project_id, url, kinds, enabled, consecutive_failures, last_error, created_at
          FROM webhook_endpoints WHERE project_id = ${projectId} ORDER BY created_at, id`.pipe(
          Effect.flatMap(Effect.forEach(endpointFromRow))
        )
      )
    ),
    setEnabled: traced("WebhookEndpoints.setEnabled")(function*(projectId, id, enabled) {
      const rows = yield* orDieInfra(sql`
        UPDATE webhook_endpoints
        SET enabled = ${enabled}, consecutive_failures = CASE WHEN ${enabled} THEN 0 ELSE consecutive_failures END
        WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)
      if (rows.length === 0) return yield* new WebhookEndpointNotFound({ endpointId: id })
    }),
    setKinds: traced("WebhookEndpoints.setKinds")(function*(projectId, id, kinds) {
      const rows = yield* orDieInfra(sql`
        UPDATE webhook_endpoints SET kinds = ${kinds}::text[] WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)
      if (rows.length === 0) return yield* new WebhookEndpointNotFound({ endpointId: id })
    }),
    signingTarget: traced("WebhookEndpoints.signingTarget")(function*(projectId, id) {
      const [row] = yield* orDieInfra(sql<SecretColumns & { readonly url: string }>`
        SELECT url, secret, previous_secret, previous_secret_expires_at
        FROM webhook_endpoints WHERE project_id = ${projectId} AND id = ${id}`)
      if (row === undefined) return yield* new WebhookEndpointNotFound({ endpointId: id })
      return { url: row.url, secrets: opened(row, id) }
    }),
    rotateSecret: traced("WebhookEndpoints.rotateSecret")(function*(projectId, id, secret, previousUntil) {
      const rows = yield* orDieInfra(sql`
        UPDATE webhook_endpoints SET
          previous_secret = secret,
          previous_secret_expires_at = ${DateTime.formatIso(previousUntil)}::timestamptz,
          secret = ${cipher.seal(Redacted.value(secret), id)}
        WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)
      if (rows.length === 0) return yield* new WebhookEndpointNotFound({ endpointId: id })
    }),
    remove: traced("WebhookEndpoints.remove")(function*(projectId, id) {
      const rows = yield* orDieInfra(
        sql`DELETE FROM webhook_endpoints WHERE project_id = ${projectId} AND id = ${id} RETURNING id`
      )
      if (rows.length === 0) return yield* new WebhookEndpointNotFound({ endpointId: id })
    })
  })

  const claimed = (row: ClaimRow) =>
    Effect.map(eventFromRow(row), (event): ClaimedSend => ({
      sendId: row.send_id,
      event,
      endpoint: {
        id: WebhookEndpointId.make(row.endpoint_id),
        url: row.url,
        secrets: opened(row, row.endpoint_id)
      },
      attempts: row.attempts
    }))

  const finish = (sendId: string, worker: string, outcome: OutboxSendOutcome) =>
    Effect.gen(function*() {
      const at = DateTime.formatIso(outcome.at)
      const [send] = yield* sql<{ readonly endpoint_id: string }>`
        UPDATE webhook_sends SET
          attempts = attempts + 1,
          status = ${outcome._tag === "Sent" ? "sent" : outcome._tag === "GaveUp" ? "given_up" : "pending"},
          due_at = ${outcome._tag === "Retry" ? DateTime.formatIso(outcome.dueAt) : at}::timestamptz,
          last_error = ${outcome._tag === "Sent" ? null : outcome.error},
          finished_at = ${outcome._tag === "Retry" ? null : at}::timestamptz,
          lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ${sendId} AND lease_owner = ${worker} AND status = 'pending'
        RETURNING endpoint_id`
      if (send === undefined) return
      if (outcome._tag === "Sent") {
        yield* sql`UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = ${send.endpoint_id}`
      } else if (outcome._tag === "GaveUp") {
        yield* sql`
          UPDATE webhook_endpoints SET
            consecutive_failures = consecutive_failures + 1,
            last_error = ${outcome.error},
            enabled = enabled AND consecutive_failures + 1 < ${outcome.disableAfter}
          WHERE id = ${send.endpoint_id}`
      }
    })

  const queue = OutboxQueue.of({
    claimDue: traced("OutboxQueue.claimDue")(({ leaseMillis, limit, now, worker }) => {
      const at = DateTime.formatIso(now)
      return orDieInfra(
        sql<ClaimRow>`
          WITH due AS (
            SELECT s.id FROM webhook_sends s
            JOIN webhook_endpoints w ON w.id = s.endpoint_id AND w.enabled
            WHERE s.status = 'pending' AND s.due_at <= ${at}
              AND (s.lease_expires_at IS NULL OR s.lease_expires_at <= ${at})
            ORDER BY s.due_at, s.id
            LIMIT ${limit}
            FOR UPDATE OF s SKIP LOCKED
          )
          UPDATE webhook_sends s
          SET lease_owner = ${worker},
              lease_expires_at = ${at}::timestamptz + ${leaseMillis} * interval '1 millisecond'
          FROM due, outbox_events e, webhook_endpoints w
          WHERE s.id = due.id AND e.id = s.event_id AND w.id = s.endpoint_id
          RETURNING s.id AS send_id, s.attempts, e.id, e.project_id, e.kind, e.data, e.created_at,
            w.id AS endpoint_id, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at`.pipe(Effect.flatMap(Effect.forEach(claimed)))
      )
    }),
    complete: traced("OutboxQueue.complete")((sendId, worker, outcome) =>
      orDieInfra(sql.withTransaction(finish(sendId, worker, outcome)))
    ),
    wakeups: wakeups.listen("outbox")
  })

  return Layer.succeed(WebhookEndpoints, endpoints).pipe(Layer.merge(Layer.succeed(OutboxQueue, queue)))
})

/** WebhookEndpoints and OutboxQueue over webhook_endpoints, outbox_events and webhook_sends. */
export const PostgresWebhooks = Layer.unwrapEffect(make)
