import { SqlClient } from "@effect/sql"
import { RateLimitStore } from "@herald/core"
import { DateTime, Effect, Layer } from "effect"
import { orDieInfra } from "./Infra.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return RateLimitStore.of({
    hit: Effect.fn("RateLimitStore.hit")(function*(keyId, limit, now) {
      const windowStart = DateTime.startOf(now, "minute")
      // One statement, so concurrent requests from any number of processes count exactly. A
      // process whose clock lags counts into the newer window instead of resetting it. Its commit
      // does not wait for the WAL flush (synchronous_commit off for this statement's transaction
      // only): a database crash may forget the last moments' hits, which a limiter can afford; a
      // disk flush on every request it cannot (3.0 -> 0.16 ms per hit, mean, on the loaded bench
      // box). So never call it inside another transaction: the setting would cover that one too.
      const [row] = yield* orDieInfra(sql<{ readonly hits: number; readonly window_start: Date }>`
        WITH no_flush AS (SELECT set_config('synchronous_commit', 'off', true))
        INSERT INTO rate_limit_windows (key_id, window_start, hits)
        SELECT ${keyId}::uuid, ${DateTime.formatIso(windowStart)}::timestamptz, 1 FROM no_flush
        ON CONFLICT (key_id) DO UPDATE SET
          hits = CASE WHEN EXCLUDED.window_start > rate_limit_windows.window_start THEN 1
                      ELSE rate_limit_windows.hits + 1 END,
          window_start = GREATEST(EXCLUDED.window_start, rate_limit_windows.window_start)
        RETURNING hits, window_start`)
      const hits = row!.hits
      return {
        limit,
        remaining: Math.max(limit - hits, 0),
        resetAt: DateTime.add(DateTime.unsafeMake(row!.window_start), { minutes: 1 }),
        allowed: hits <= limit
      }
    })
  })
})

export const PostgresRateLimitStore = Layer.effect(RateLimitStore, make)
