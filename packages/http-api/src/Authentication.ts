import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ApiKeyStore, type Principal, RateLimitStore, type RateLimitVerdict } from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { apiKeyPattern, hashApiKey } from "./ApiKeys.js"
import { authenticateAs, Authentication } from "./Api.js"
import { retryAfter, TooManyRequests, Unauthorized } from "./HttpErrors.js"

const refusal = (code: "missing_api_key" | "invalid_api_key" | "revoked_api_key", error: string) =>
  new Unauthorized({ error, code })

/**
 * The key the Authorization header presents, or why it is refused. The security decoder took the
 * same header (everything after "Bearer "), so `presented` and the header's second word name the
 * same key.
 */
const presentedKey = (header: string | undefined, presented: Redacted.Redacted): string | Unauthorized => {
  const [scheme = "", ...rest] = (header ?? "").trim().split(/\s+/)
  if (scheme !== "" && scheme.toLowerCase() !== "bearer") {
    return refusal("invalid_api_key", "invalid API key: the Authorization header must be Bearer <key>")
  }
  const key = rest.length === 0 ? "" : Redacted.value(presented).trim()
  if (key === "") return refusal("missing_api_key", "missing API key: send Authorization: Bearer <key>")
  return apiKeyPattern.test(key) ? key : refusal("invalid_api_key", "invalid API key")
}

/**
 * X-RateLimit-* on the reply, whatever it turns out to be (success or error). One setHeader per
 * header: setHeaders spreads both header sets into a new object and lowercases every name, on
 * every request (bench/README.md, HTTP).
 */
const rateLimitHeaders = (verdict: RateLimitVerdict) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(
      response.pipe(
        HttpServerResponse.setHeader("x-ratelimit-limit", String(verdict.limit)),
        HttpServerResponse.setHeader("x-ratelimit-remaining", String(verdict.remaining)),
        HttpServerResponse.setHeader("x-ratelimit-reset", String(Math.ceil(DateTime.toEpochMillis(verdict.resetAt) / 1000)))
      )
    )
  )

const rateLimited = (verdict: RateLimitVerdict, now: DateTime.Utc) => {
  const seconds = Math.max(Math.ceil(DateTime.distance(now, verdict.resetAt) / 1000), 1)
  return Effect.zipRight(
    retryAfter(seconds),
    Effect.fail(
      new TooManyRequests({
        error: `rate limit of ${verdict.limit} requests a minute reached; retry in ${seconds} s`,
        code: "rate_limited",
        retry_after: seconds
      })
    )
  )
}

/**
 * The bearer key: its SHA-256 is the lookup (nothing secret is compared, so there is no timing
 * oracle), a revoked key is told apart from an unknown one, and every accepted request counts
 * against the key's per-minute limit.
 *
 * It runs on every request, and what it needs is in memory nearly always (the key through the
 * store's cache, the rate limit through this process's share of the window): so it is a short
 * chain of steps, each synchronous work inside, rather than a generator of a step per value.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const keys = yield* ApiKeyStore
    const limits = yield* RateLimitStore

    const admit = (principal: Principal, rateLimitPerMinute: number) =>
      Effect.clockWith((clock) => {
        const now = DateTime.unsafeMake(clock.unsafeCurrentTimeMillis())
        // Best effort and cheap (PostgreSQL writes it at most once a minute per key): no fiber of its own.
        return keys.touch(principal.keyId, now).pipe(
          Effect.zipRight(limits.hit(principal.keyId, rateLimitPerMinute, now)),
          Effect.flatMap((verdict) =>
            Effect.zipRight(rateLimitHeaders(verdict), verdict.allowed ? authenticateAs(principal) : rateLimited(verdict, now))
          )
        )
      })

    return Authentication.of({
      bearer: (presented) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const key = presentedKey(request.headers.authorization, presented)
          if (typeof key !== "string") return Effect.fail(key)
          return Effect.flatMap(keys.findByHash(hashApiKey(key)), (found) =>
            Option.isNone(found)
              ? Effect.fail(refusal("invalid_api_key", "invalid API key"))
              : found.value.revoked
              ? Effect.fail(refusal("revoked_api_key", "this API key was revoked"))
              : admit(found.value.principal, found.value.rateLimitPerMinute))
        })
    })
  })
)
