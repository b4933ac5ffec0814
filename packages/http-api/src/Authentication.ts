import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ApiKeyStore, RateLimitStore, type RateLimitVerdict } from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { apiKeyPattern, hashApiKey } from "./ApiKeys.js"
import { Authentication } from "./Api.js"
import { retryAfter, TooManyRequests, Unauthorized } from "./HttpErrors.js"

const refuse = (code: "missing_api_key" | "invalid_api_key" | "revoked_api_key", error: string) =>
  Effect.fail(new Unauthorized({ error, code }))

/** X-RateLimit-* on the reply, whatever it turns out to be (success or error). */
const rateLimitHeaders = (verdict: RateLimitVerdict) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, {
      "x-ratelimit-limit": String(verdict.limit),
      "x-ratelimit-remaining": String(verdict.remaining),
      "x-ratelimit-reset": String(Math.ceil(DateTime.toEpochMillis(verdict.resetAt) / 1000))
    }))
  )

/**
 * The bearer key: its SHA-256 is the lookup (nothing secret is compared, so there is no timing
 * oracle), a revoked key is told apart from an unknown one, and every accepted request counts
 * against the key's per-minute limit.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const keys = yield* ApiKeyStore
    const limits = yield* RateLimitStore
    return Authentication.of({
      bearer: (presented) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const [scheme = "", ...rest] = (request.headers.authorization ?? "").trim().split(/\s+/)
          if (scheme !== "" && scheme.toLowerCase() !== "bearer") {
            return yield* refuse("invalid_api_key", "invalid API key: the Authorization header must be Bearer <key>")
          }
          // The security decoder took the same header; presented and rest name the same key.
          const key = rest.length === 0 ? "" : Redacted.value(presented).trim()
          if (key === "") return yield* refuse("missing_api_key", "missing API key: send Authorization: Bearer <key>")
          if (!apiKeyPattern.test(key)) return yield* refuse("invalid_api_key", "invalid API key")
          const found = yield* keys.findByHash(hashApiKey(key))
          if (Option.isNone(found)) return yield* refuse("invalid_api_key", "invalid API key")
          if (found.value.revoked) return yield* refuse("revoked_api_key", "this API key was revoked")
          const { principal, rateLimitPerMinute } = found.value
          const now = yield* DateTime.now
          // Best effort and cheap (PostgreSQL writes it at most once a minute per key): no fiber of its own.
          yield* keys.touch(principal.keyId, now)
          const verdict = yield* limits.hit(principal.keyId, rateLimitPerMinute, now)
          yield* rateLimitHeaders(verdict)
          if (!verdict.allowed) {
            const seconds = Math.max(Math.ceil(DateTime.distance(now, verdict.resetAt) / 1000), 1)
            yield* retryAfter(seconds)
            return yield* Effect.fail(
              new TooManyRequests({
                error: `rate limit of ${verdict.limit} requests a minute reached; retry in ${seconds} s`,
                code: "rate_limited",
                retry_after: seconds
              })
            )
          }
          return principal
        })
    })
  })
)
