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
      // process whose clock lags counts into the newer window instead of resetting it.
      const [row] = yield* orDieInfra(sql<{ readonly hits: number; readonly window_start: Date }>`
        INSERT INTO rate_limit_windows (key_id, window_start, hits)
        VALUES (${keyId}, ${DateTime.formatIso(windowStart)}, 1)
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
