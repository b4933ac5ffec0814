import { SqlClient } from "@effect/sql"
import { inSpan, traced, WorkerHeartbeats } from "@herald/core"
import { DateTime, Effect, Layer } from "effect"
import { orDieInfra } from "./Infra.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return WorkerHeartbeats.of({
    beat: traced("WorkerHeartbeats.beat")((worker, kind, at) =>
      orDieInfra(sql`
        INSERT INTO worker_heartbeats (worker, kind, last_ran_at) VALUES (${worker}, ${kind}, ${DateTime.formatIso(at)})
        ON CONFLICT (worker) DO UPDATE SET kind = EXCLUDED.kind,
          last_ran_at = GREATEST(worker_heartbeats.last_ran_at, EXCLUDED.last_ran_at)`)
    ),
    list: orDieInfra(
      sql<{ readonly worker: string; readonly kind: string; readonly last_ran_at: Date }>`
        SELECT worker, kind, last_ran_at FROM worker_heartbeats ORDER BY worker`
    ).pipe(
      Effect.map((rows) => rows.map((row) => ({ worker: row.worker, kind: row.kind, lastRanAt: DateTime.unsafeMake(row.last_ran_at) }))),
      inSpan("WorkerHeartbeats.list")
    )
  })
})

export const PostgresWorkerHeartbeats = Layer.effect(WorkerHeartbeats, make)
