import { SqlClient } from "@effect/sql"
import { type ClaimedDelivery, type DeliveryId, DeliveryQueue, type PostId, type ProjectId, traced } from "@herald/core"
import { Chunk, DateTime, Deferred, Effect, Exit, Layer, Option, Queue } from "effect"
import { orDieInfra } from "./Infra.js"
import { Wakeups } from "./Wakeups.js"

interface Release {
  readonly deliveryId: DeliveryId
  readonly worker: string
  readonly done: Deferred.Deferred<void>
}

/** At most this many leases are released by one statement. */
const releaseBatch = 512

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups

  // Every delivery ends with a release, each its own commit. Releases that arrive while one
  // statement runs go out together in the next, so a busy dispatcher pays one commit for many.
  const releases = yield* Queue.unbounded<Release>()
  yield* Effect.addFinalizer(() => Queue.shutdown(releases))
  const releaseAll = (batch: ReadonlyArray<Release>) =>
    orDieInfra(sql`
      UPDATE deliveries d SET lease_owner = NULL, lease_expires_at = NULL
      FROM unnest(${batch.map((release) => release.deliveryId)}::uuid[], ${batch.map((release) => release.worker)}::text[])
        AS r(id, worker)
      WHERE d.id = r.id AND d.lease_owner = r.worker`).pipe(
      Effect.exit,
      Effect.flatMap((exit) => Effect.forEach(batch, (release) => Deferred.done(release.done, Exit.asVoid(exit)), { discard: true }))
    )
  // A taken batch is always written and answered, even while the scope closes.
  yield* Effect.forkScoped(Effect.forever(
    Effect.uninterruptibleMask((restore) => Effect.flatMap(restore(Queue.takeBetween(releases, 1, releaseBatch)), (batch) => releaseAll(Chunk.toReadonlyArray(batch))))
  ))

  return DeliveryQueue.of({
    claimDue: traced("DeliveryQueue.claimDue")(({ leaseMillis, limit, now, worker }) => {
      // Migration 0008: the lapsed leases first, then the due deliveries, each half in its index's order.
      return orDieInfra(
        sql<{ readonly delivery_id: string; readonly post_id: string; readonly project_id: string }>`
          SELECT delivery_id, post_id, project_id FROM claim_due_deliveries(${worker}, ${DateTime.formatIso(now)}, ${leaseMillis}, ${limit})`.pipe(
          // uuid columns, NOT NULL: the ids need no checking again (a schema per row cost more than the claim's share of its statement).
          Effect.map((rows) =>
            rows.map((row): ClaimedDelivery => ({
              deliveryId: row.delivery_id as DeliveryId,
              postId: row.post_id as PostId,
              projectId: row.project_id as ProjectId
            }))
          )
        )
      )
    }),
    renew: traced("DeliveryQueue.renew")((deliveryId, { leaseMillis, now, worker }) =>
      orDieInfra(sql`
        UPDATE deliveries
        SET lease_expires_at = ${DateTime.formatIso(now)}::timestamptz + ${leaseMillis} * interval '1 millisecond'
        WHERE id = ${deliveryId} AND lease_owner = ${worker} AND lease_expires_at > ${DateTime.formatIso(now)}
        RETURNING id`).pipe(Effect.map((rows) => rows.length > 0))
    ),
    release: traced("DeliveryQueue.release")(function*(deliveryId, worker) {
      const done = yield* Deferred.make<void>()
      yield* Queue.offer(releases, { deliveryId, worker, done })
      return yield* Deferred.await(done)
    }),
    // The claim's own partial index (deliveries_claimable, by due_at): one index entry read.
    nextDue: traced("DeliveryQueue.nextDue")((now) =>
      orDieInfra(sql<{ readonly next: Date | null }>`
        SELECT min(due_at) AS next FROM deliveries
        WHERE status IN ('queued', 'unknown') AND due_at > ${DateTime.formatIso(now)}`).pipe(
        Effect.map(([row]) => Option.map(Option.fromNullable(row?.next), DateTime.unsafeMake))
      )
    ),
    wakeups: wakeups.listen("deliveries")
  })
})

export const PostgresDeliveryQueue = Layer.scoped(DeliveryQueue, make)
