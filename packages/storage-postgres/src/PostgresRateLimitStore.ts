import { SqlClient } from "@effect/sql"
import { type ApiKeyId, RateLimitStore, type RateLimitVerdict } from "@herald/core"
import { DateTime, Deferred, Effect, Layer } from "effect"
import { orDieInfra } from "./Infra.js"

/**
 * The part of a key's current window this process holds: requests it may admit without asking
 * the database. `handedOut` is the window's total handed out to every process when this one last
 * took some.
 */
interface Share {
  readonly window: number
  readonly limit: number
  readonly resetAt: DateTime.Utc
  readonly handedOut: number
  left: number
}

/**
 * How many requests a process takes from a key's window at once: 1 % of the limit, so the default
 * 60 a minute is counted one by one (exactly, as before), and a high limit costs one statement per
 * hundredth of it. The limit is never exceeded, however many processes serve the key; a request may
 * be refused while other processes still hold up to 1 % each, unused.
 */
export const shareOf = (limit: number) => Math.min(Math.max(Math.floor(limit / 100), 1), 1_000)

const verdict = (share: Share, allowed: boolean): RateLimitVerdict => ({
  limit: share.limit,
  remaining: Math.max(share.limit - share.handedOut + share.left, 0),
  resetAt: share.resetAt,
  allowed
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const shares = new Map<ApiKeyId, Share>()
  // One statement per key at a time: concurrent requests wait for it rather than each taking a share.
  const taking = new Map<ApiKeyId, Deferred.Deferred<void>>()

  // One statement, so concurrent processes share a window exactly. A process whose clock lags
  // counts into the newer window instead of resetting it. Its commit does not wait for the WAL
  // flush (synchronous_commit off for this statement's transaction only): a database crash may
  // forget the last moments' counts, which a limiter can afford; a disk flush per statement it
  // cannot. So never call it inside another transaction: the setting would cover that one too.
  const take = (keyId: ApiKeyId, limit: number, window: DateTime.Utc) =>
    orDieInfra(sql<{ readonly hits: number; readonly last_grant: number; readonly window_start: Date }>`
      WITH no_flush AS (SELECT set_config('synchronous_commit', 'off', true))
      INSERT INTO rate_limit_windows (key_id, window_start, hits, last_grant)
      SELECT ${keyId}::uuid, ${DateTime.formatIso(window)}::timestamptz, ${shareOf(limit)}, ${shareOf(limit)} FROM no_flush
      ON CONFLICT (key_id) DO UPDATE SET
        last_grant = CASE WHEN EXCLUDED.window_start > rate_limit_windows.window_start THEN EXCLUDED.hits
                          ELSE LEAST(EXCLUDED.hits, GREATEST(${limit} - rate_limit_windows.hits, 0)) END,
        hits = CASE WHEN EXCLUDED.window_start > rate_limit_windows.window_start THEN EXCLUDED.hits
                    ELSE rate_limit_windows.hits + LEAST(EXCLUDED.hits, GREATEST(${limit} - rate_limit_windows.hits, 0)) END,
        window_start = GREATEST(EXCLUDED.window_start, rate_limit_windows.window_start)
      RETURNING hits, last_grant, window_start`).pipe(
      Effect.map(([row]) => ({
        granted: row!.last_grant,
        handedOut: row!.hits,
        resetAt: DateTime.add(DateTime.unsafeMake(row!.window_start), { minutes: 1 })
      }))
    )

  const hit = (keyId: ApiKeyId, limit: number, now: DateTime.Utc): Effect.Effect<RateLimitVerdict> =>
    Effect.suspend(() => {
      // The UTC minute, as DateTime.startOf(now, "minute") gives it, without building that instant
      // on every request: it is needed only to take a share.
      const window = Math.floor(DateTime.toEpochMillis(now) / 60_000) * 60_000
      const share = shares.get(keyId)
      if (share !== undefined && share.window === window && share.limit === limit) {
        if (share.left > 0) {
          share.left--
          return Effect.succeed(verdict(share, true))
        }
        // Everything this window allows is handed out: refuse here until it ends.
        if (share.handedOut >= limit) return Effect.succeed(verdict(share, false))
      }
      const inFlight = taking.get(keyId)
      if (inFlight !== undefined) return Effect.zipRight(Deferred.await(inFlight), hit(keyId, limit, now))
      return Effect.gen(function*() {
        const done = yield* Deferred.make<void>()
        taking.set(keyId, done)
        const taken = yield* take(keyId, limit, DateTime.unsafeMake(window)).pipe(
          Effect.ensuring(Effect.zipRight(Effect.sync(() => taking.delete(keyId)), Deferred.succeed(done, undefined)))
        )
        const fresh: Share = { window, limit, resetAt: taken.resetAt, handedOut: taken.handedOut, left: taken.granted }
        if (shares.size >= maxKeys && !shares.has(keyId)) shares.clear()
        shares.set(keyId, fresh)
        if (fresh.left === 0) return verdict(fresh, false)
        fresh.left--
        return verdict(fresh, true)
      }).pipe(Effect.uninterruptible)
    })

  return RateLimitStore.of({ hit })
})

/** Keys whose shares a process remembers before it starts over (a share forgotten is merely unused). */
const maxKeys = 10_000

export const PostgresRateLimitStore = Layer.effect(RateLimitStore, make)
