import { SqlClient } from "@effect/sql"
import {
  traced,
  WebhookAttempt,
  WebhookDeliveryLog,
  WebhookEndpointNotFound,
  WebhookSendNotFound,
  WebhookSendNotGivenUp
} from "@herald/core"
import { DateTime, Effect, Layer, Schema } from "effect"
import { orDieInfra } from "./Infra.js"
import { Wakeups } from "./Wakeups.js"

interface AttemptRow {
  readonly project_id: string
  readonly endpoint_id: string
  readonly event_id: string
  readonly kind: string
  readonly delivery_id: string
  readonly attempt: number
  readonly at: Date
  readonly status_code: number | null
  readonly latency_ms: number
  readonly response_prefix: string
  readonly error: string | null
  readonly outcome: string
}

const decodeAttempt = Schema.decodeUnknown(WebhookAttempt)
const encodeAttempt = Schema.encodeSync(WebhookAttempt)

const attemptFromRow = (row: AttemptRow) =>
  decodeAttempt({
    projectId: row.project_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    kind: row.kind,
    deliveryId: row.delivery_id,
    attempt: row.attempt,
    at: row.at.toISOString(),
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    responsePrefix: row.response_prefix,
    error: row.error,
    outcome: row.outcome
  })

/** Postgres text refuses NUL; a reply's first bytes may hold one, and the log is for reading. */
const printable = (text: string): string => text.replaceAll("\u0000", "\uFFFD")

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups

  const requireEndpoint = (projectId: string, endpointId: string) =>
    Effect.flatMap(
      sql`SELECT 1 AS found FROM webhook_endpoints WHERE id = ${endpointId} AND project_id = ${projectId}`,
      (rows) => rows.length === 0 ? Effect.fail(new WebhookEndpointNotFound({ endpointId })) : Effect.void
    )

  return WebhookDeliveryLog.of({
    record: traced("WebhookDeliveryLog.record")((attempt) => {
      const row = encodeAttempt(attempt)
      return orDieInfra(sql`INSERT INTO webhook_attempts ${
        sql.insert({
          project_id: row.projectId,
          endpoint_id: row.endpointId,
          event_id: row.eventId,
          kind: row.kind,
          delivery_id: row.deliveryId,
          attempt: row.attempt,
          at: row.at,
          status_code: row.statusCode,
          latency_ms: row.latencyMs,
          response_prefix: printable(row.responsePrefix),
          error: row.error === null ? null : printable(row.error),
          outcome: row.outcome
        })
      }`)
    }),
    list: traced("WebhookDeliveryLog.list")((projectId, endpointId, query) =>
      orDieInfra(Effect.gen(function*() {
        yield* requireEndpoint(projectId, endpointId)
        const rows = yield* sql<AttemptRow>`
          SELECT project_id, endpoint_id, event_id, kind, delivery_id, attempt, at, status_code,
            latency_ms, response_prefix, error, outcome
          FROM webhook_attempts
          WHERE endpoint_id = ${endpointId}
            ${query.eventId === undefined ? sql`` : sql`AND event_id = ${query.eventId}`}
          ORDER BY at DESC, id DESC
          LIMIT ${query.limit}`
        return yield* Effect.forEach(rows, attemptFromRow)
      }))
    ),
    resend: traced("WebhookDeliveryLog.resend")((projectId, endpointId, eventId, now) =>
      orDieInfra(Effect.gen(function*() {
        yield* requireEndpoint(projectId, endpointId)
        // One statement reads the status it replaces, so two resends at once queue the event once.
        const [send] = yield* sql<{ readonly status: "pending" | "sent" | "given_up"; readonly resent: boolean }>`
          WITH current AS (
            SELECT id, status FROM webhook_sends WHERE event_id = ${eventId} AND endpoint_id = ${endpointId} FOR UPDATE
          ), resent AS (
            UPDATE webhook_sends s SET
              status = 'pending', attempts = 0, due_at = ${DateTime.formatIso(now)}::timestamptz,
              last_error = NULL, finished_at = NULL, lease_owner = NULL, lease_expires_at = NULL
            FROM current WHERE s.id = current.id AND current.status = 'given_up'
            RETURNING s.id
          )
          SELECT current.status, EXISTS (SELECT 1 FROM resent) AS resent FROM current`
        if (send === undefined) return yield* new WebhookSendNotFound({ endpointId, eventId })
        if (!send.resent) {
          return yield* new WebhookSendNotGivenUp({ eventId, status: send.status === "sent" ? "sent" : "pending" })
        }
        yield* wakeups.signal("outbox")
      }))
    )
  })
})

/** WebhookDeliveryLog over webhook_attempts (the log) and webhook_sends (resend). */
export const PostgresWebhookDeliveryLog = Layer.effect(WebhookDeliveryLog, make)
