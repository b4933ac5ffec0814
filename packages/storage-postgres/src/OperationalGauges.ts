import { SqlClient } from "@effect/sql"
import { DateTime, Effect } from "effect"
import { orDieInfra } from "./Infra.js"

/** How far behind the queues are at one moment, as the Prometheus page shows it (docs/operations.md). */
export interface OperationalGauges {
  /** Deliveries due now and not yet taken by a worker (queued, or unknown awaiting a look-up). */
  readonly dueDeliveries: number
  /** How long the most overdue of those has been due, in seconds (0 when none is). */
  readonly oldestDueSeconds: number
  /** Webhook sends not yet delivered nor given up (the outbox's depth). */
  readonly pendingWebhookSends: number
  /** How long the most overdue pending webhook send has been due, in seconds (0 when none is). */
  readonly oldestWebhookDueSeconds: number
}

/** Read at scrape time: two indexed counts (the due indexes the claim queries use). */
export const operationalGauges = (now: DateTime.Utc) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const at = DateTime.formatIso(now)
    return orDieInfra(sql<{ readonly due: string; readonly oldest: Date | null; readonly sends: string; readonly oldest_send: Date | null }>`
      SELECT
        (SELECT count(*) FROM deliveries WHERE status IN ('queued', 'unknown') AND due_at <= ${at}) AS due,
        (SELECT min(due_at) FROM deliveries WHERE status IN ('queued', 'unknown') AND due_at <= ${at}) AS oldest,
        (SELECT count(*) FROM webhook_sends WHERE status = 'pending') AS sends,
        (SELECT min(due_at) FROM webhook_sends WHERE status = 'pending' AND due_at <= ${at}) AS oldest_send`)
  }).pipe(Effect.map(([row]): OperationalGauges => {
    const secondsSince = (at: Date | null | undefined) =>
      at === null || at === undefined ? 0 : Math.max(0, (DateTime.toEpochMillis(now) - at.getTime()) / 1000)
    return {
      dueDeliveries: Number(row?.due ?? 0),
      oldestDueSeconds: secondsSince(row?.oldest),
      pendingWebhookSends: Number(row?.sends ?? 0),
      oldestWebhookDueSeconds: secondsSince(row?.oldest_send)
    }
  }))
