import { DateTime, Effect, Metric, Option, Schema } from "effect"
import type { Principal } from "../Principal.js"
import { type ApiKeyHash, type ApiKeyMatch, ApiKeyStore } from "../ports/ApiKeyStore.js"
import { RateLimitStore, RateLimitVerdict } from "../ports/RateLimitStore.js"
import { recordCaller } from "../RequestRecord.js"
import { rateLimitRefusals } from "../ServiceMetrics.js"

/** No key has this hash. */
export class ApiKeyUnknown extends Schema.TaggedError<ApiKeyUnknown>()("ApiKeyUnknown", {}) {
  override get message(): string {
    return "invalid API key"
  }
}

/** The key exists but was revoked: told apart from an unknown one so its holder knows why. */
export class ApiKeyRevoked extends Schema.TaggedError<ApiKeyRevoked>()("ApiKeyRevoked", {}) {
  override get message(): string {
    return "this API key was revoked"
  }
}

/** The key used up its current one-minute window; `retryAfterSeconds` (at least 1) until it resets. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  verdict: RateLimitVerdict,
  retryAfterSeconds: Schema.Int
}) {
  override get message(): string {
    return `rate limit of ${this.verdict.limit} requests a minute reached; retry in ${this.retryAfterSeconds} s`
  }
}

/** A request admitted: who makes it, and the state of its key's window (for the caller's rate-limit headers). */
export interface Authenticated {
  readonly principal: Principal
  readonly verdict: RateLimitVerdict
}

/**
 * Key → principal. The caller hashes the presented key (SHA-256, ApiKeyHash) before it gets here:
 * the secret itself never enters the core, so no span, error or log written here can carry it,
 * and the core needs no crypto. Nothing secret is compared (the hash is the lookup), so there is
 * no timing oracle.
 *
 * Built once from the stores (a REST server builds it with its layer): each call is then a short
 * chain of steps, each synchronous inside, as it runs on every request and what it needs is in
 * memory nearly always (the key through the store's cache, the rate limit through this process's
 * share of the window).
 */
export const makeAuthenticator = Effect.map(Effect.all([ApiKeyStore, RateLimitStore]), ([keys, limits]) => {
  const known = (found: Option.Option<ApiKeyMatch>): Effect.Effect<ApiKeyMatch, ApiKeyUnknown | ApiKeyRevoked> =>
    Option.isNone(found)
      ? Effect.fail(new ApiKeyUnknown())
      : found.value.revoked
      ? Effect.fail(new ApiKeyRevoked())
      : Effect.succeed(found.value)

  // Best effort and cheap (PostgreSQL writes it at most once a minute per key): no fiber of its own.
  // The caller is recorded for the access log (RequestRecord) wherever a key is recognised.
  const touched = (match: ApiKeyMatch, now: DateTime.Utc) =>
    Effect.zipRight(recordCaller(match.principal.keyId), keys.touch(match.principal.keyId, now))

  const admit = (match: ApiKeyMatch) =>
    Effect.clockWith((clock) => {
      const now = DateTime.unsafeMake(clock.unsafeCurrentTimeMillis())
      return touched(match, now).pipe(
        Effect.zipRight(limits.hit(match.principal.keyId, match.rateLimitPerMinute, now)),
        Effect.flatMap((verdict): Effect.Effect<Authenticated, RateLimited> =>
          verdict.allowed
            ? Effect.succeed({ principal: match.principal, verdict })
            : Effect.zipRight(
              Metric.increment(rateLimitRefusals),
              Effect.fail(
                new RateLimited({
                  verdict,
                  retryAfterSeconds: Math.max(Math.ceil(DateTime.distance(now, verdict.resetAt) / 1000), 1)
                })
              )
            )
        )
      )
    })

  return {
    /** The key's principal (its project, kind and scopes); unknown and revoked keys refused. Counts nothing. */
    identify: (hash: ApiKeyHash): Effect.Effect<Principal, ApiKeyUnknown | ApiKeyRevoked> =>
      Effect.map(Effect.flatMap(keys.findByHash(hash), known), (match) => match.principal),
    /**
     * identify, then the key's last use recorded; counts nothing against its limit (the SDK: the
     * embedding service calls for itself, and a rate limit there would only stall its own work).
     */
    recognize: (hash: ApiKeyHash): Effect.Effect<Principal, ApiKeyUnknown | ApiKeyRevoked> =>
      Effect.flatMap(Effect.flatMap(keys.findByHash(hash), known), (match) =>
        Effect.clockWith((clock) =>
          Effect.as(touched(match, DateTime.unsafeMake(clock.unsafeCurrentTimeMillis())), match.principal))),
    /** identify, then the key's last use recorded and one request counted against its per-minute limit. */
    authenticate: (hash: ApiKeyHash): Effect.Effect<Authenticated, ApiKeyUnknown | ApiKeyRevoked | RateLimited> =>
      Effect.flatMap(Effect.flatMap(keys.findByHash(hash), known), admit)
  }
})

export type Authenticator = Effect.Effect.Success<typeof makeAuthenticator>
