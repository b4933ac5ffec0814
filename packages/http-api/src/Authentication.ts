import { HttpServerRequest } from "@effect/platform"
import { type ApiKeyHash, type ApiKeyRevoked, type ApiKeyUnknown, DashboardSessions, makeAuthenticator, type RateLimited, type RateLimitVerdict } from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { apiKeyPattern, hashApiKey } from "./ApiKeys.js"
import { Authentication } from "./Api.js"
import { sessionCredential, sessionEndedReply } from "./DashboardSession.js"
import { retryAfter, TooManyRequests, Unauthorized } from "./HttpErrors.js"
import { authenticateAs, replyHeaders } from "./RequestPath.js"

const refusal = (code: Unauthorized["code"], error: string) => new Unauthorized({ error, code })

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

/** X-RateLimit-* on the reply, whatever it turns out to be (success or error). */
const rateLimitHeaders = (verdict: RateLimitVerdict) =>
  replyHeaders(
    ["x-ratelimit-limit", String(verdict.limit)],
    ["x-ratelimit-remaining", String(verdict.remaining)],
    ["x-ratelimit-reset", String(Math.ceil(DateTime.toEpochMillis(verdict.resetAt) / 1000))]
  )

/** 429 with Retry-After; the X-RateLimit-* headers are set by the caller, as on every reply. */
const rateLimited = (refused: RateLimited) =>
  Effect.zipRight(
    retryAfter(refused.retryAfterSeconds),
    Effect.fail(new TooManyRequests({ error: refused.message, code: "rate_limited", retry_after: refused.retryAfterSeconds }))
  )

const refused = (failure: ApiKeyUnknown | ApiKeyRevoked | RateLimited): Effect.Effect<never, Unauthorized | TooManyRequests> =>
  failure._tag === "RateLimited"
    ? Effect.zipRight(rateLimitHeaders(failure.verdict), rateLimited(failure))
    : Effect.fail(refusal(failure._tag === "ApiKeyRevoked" ? "revoked_api_key" : "invalid_api_key", failure.message))

/**
 * The bearer key, checked by core's authenticator (see makeAuthenticator): here only what is HTTP's
 * (the header's shape, the key's format, the 401/429 replies and the X-RateLimit-* headers). A
 * request without an Authorization header may come with a reviewer's dashboard session instead
 * (DashboardSession.ts, where the server keeps sessions): it runs as the human key the session
 * was opened with.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const { authenticate } = yield* makeAuthenticator
    const sessions = yield* Effect.serviceOption(DashboardSessions)
    const admit = (hash: ApiKeyHash) =>
      Effect.matchEffect(authenticate(hash), {
        onFailure: refused,
        onSuccess: ({ principal, verdict }) => Effect.zipRight(rateLimitHeaders(verdict), authenticateAs(principal))
      })
    return Authentication.of({
      bearer: (presented) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          sessionCredential(sessions, request, "reviewer").pipe(
            Effect.catchTag("SessionEnded", (ended) => Effect.fail(sessionEndedReply(ended))),
            Effect.flatMap(Option.match({
              onSome: admit,
              onNone: () => {
                const key = presentedKey(request.headers.authorization, presented)
                return typeof key === "string" ? admit(hashApiKey(key)) : Effect.fail(key)
              }
            }))
          ))
    })
  })
)

/**
 * The key as the SDK presents it (createHerald's handler of its own, reached only in process):
 * identified and its last use recorded, counted against no rate limit (the embedding service calls
 * for itself), the caller marked as come through the SDK (provenance).
 */
export const SdkAuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(makeAuthenticator, ({ recognize }) =>
    Authentication.of({
      bearer: (presented) => {
        const key = Redacted.value(presented).trim()
        if (!apiKeyPattern.test(key)) return Effect.fail(refusal(key === "" ? "missing_api_key" : "invalid_api_key", "invalid API key"))
        return recognize(hashApiKey(key)).pipe(
          Effect.catchAll(refused),
          Effect.flatMap((principal) => authenticateAs(principal.via("sdk")))
        )
      }
    }))
)
