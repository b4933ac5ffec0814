import { SqlClient } from "@effect/sql"
import { DeliveryId, DeliveryQueue, PostId, ProjectId } from "@herald/core"
import { DateTime, Effect, Layer, Schema } from "effect"
import { orDieInfra } from "./Infra.js"
import { Wakeups } from "./Wakeups.js"

const ClaimedRow = Schema.Struct({ deliveryId: DeliveryId, postId: PostId, projectId: ProjectId })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups

  return DeliveryQueue.of({
    claimDue: Effect.fn("DeliveryQueue.claimDue")(({ leaseMillis, limit, now, worker }) => {
      const at = DateTime.formatIso(now)
      // Two index scans (migration 0004) instead of one OR that no index serves: publishing
      // deliveries whose lease lapsed first (their worker died mid-call; they have waited a whole
      // lease already), then queued and unknown ones in due order. SKIP LOCKED: concurrent
      // claimers split the due set instead of waiting on each other.
      return orDieInfra(
        sql`
          WITH lapsed AS (
            SELECT id FROM deliveries
            WHERE status = 'publishing' AND lease_expires_at <= ${at}
            ORDER BY lease_expires_at
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          ), due AS (
            SELECT id FROM deliveries
            WHERE status IN ('queued', 'unknown') AND due_at <= ${at}
              AND (lease_expires_at IS NULL OR lease_expires_at <= ${at})
            ORDER BY due_at, id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          ), picked AS (
            (SELECT id FROM lapsed) UNION ALL (SELECT id FROM due) LIMIT ${limit}
          )
          UPDATE deliveries d
          SET lease_owner = ${worker},
              lease_expires_at = ${at}::timestamptz + ${leaseMillis} * interval '1 millisecond'
          FROM picked WHERE d.id = picked.id
          RETURNING d.id AS delivery_id, d.post_id, d.project_id`.pipe(
          Effect.flatMap(Effect.forEach((row) =>
            Schema.decodeUnknown(ClaimedRow)({
              deliveryId: row.delivery_id,
              postId: row.post_id,
              projectId: row.project_id
            })
          ))
        )
      )
    }),
    renew: Effect.fn("DeliveryQueue.renew")((deliveryId, { leaseMillis, now, worker }) =>
      orDieInfra(sql`
        UPDATE deliveries
        SET lease_expires_at = ${DateTime.formatIso(now)}::timestamptz + ${leaseMillis} * interval '1 millisecond'
        WHERE id = ${deliveryId} AND lease_owner = ${worker} AND lease_expires_at > ${DateTime.formatIso(now)}
        RETURNING id`).pipe(Effect.map((rows) => rows.length > 0))
    ),
    release: Effect.fn("DeliveryQueue.release")((deliveryId, worker) =>
      orDieInfra(sql`
        UPDATE deliveries SET lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ${deliveryId} AND lease_owner = ${worker}`)
    ),
    wakeups: wakeups.listen("deliveries")
  })
})

export const PostgresDeliveryQueue = Layer.effect(DeliveryQueue, make)
