import { HttpServerRequest } from "@effect/platform"
import {
  type ApiKeyHash,
  type ApiKeyRevoked,
  type ApiKeyUnknown,
  DashboardSessions,
  makeAuthenticator,
  type OperatorRefusal,
  type Presented,
  projectHeader,
  type RateLimited,
  type RateLimitVerdict
} from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { adminTokenPattern } from "./admin/AdminTokens.js"
import { apiKeyPattern, hashApiKey } from "./ApiKeys.js"
import { Authentication } from "./Api.js"
import { requestSession, SessionEnded, sessionEndedReply } from "./DashboardSession.js"
import {
  type BadRequest,
  OperatorProjectNotFound,
  refusedFields,
  retryAfter,
  type SessionEndedReply,
  SessionRefused,
  TooManyRequests,
  Unauthorized
} from "./HttpErrors.js"
import { authenticateAs, replyHeaders } from "./RequestPath.js"

const refusal = (code: Unauthorized["code"], error: string) => new Unauthorized({ error, code })

/**
 * The key the Authorization header presents, or why it is refused. The security decoder took the
 * same header (everything after "Bearer "), so `presented` and the header's second word name the
 * same key. The admin token is presented the same way, for the operator (Herald-Project).
 */
const presentedKey = (header: string | undefined, presented: Redacted.Redacted): { key: string; adminToken: boolean } | Unauthorized => {
  const [scheme = "", ...rest] = (header ?? "").trim().split(/\s+/)
  if (scheme !== "" && scheme.toLowerCase() !== "bearer") {
    return refusal("invalid_api_key", "invalid API key: the Authorization header must be Bearer <key>")
  }
  const key = rest.length === 0 ? "" : Redacted.value(presented).trim()
  if (key === "") return refusal("missing_api_key", "missing API key: send Authorization: Bearer <key>")
  return apiKeyPattern.test(key)
    ? { key, adminToken: false }
    : adminTokenPattern.test(key)
    ? { key, adminToken: true }
    : refusal("invalid_api_key", "invalid API key")
}

/** The Herald-Project header as sent (node joins repeated headers with ", ", which no id matches). */
const projectOf = (headers: Readonly<Record<string, string | undefined>>): string | undefined => headers["herald-project"]?.trim()

/**
 * The Herald-Project refusals (core's OperatorRefusal): 400 naming the header, 404 for a project
 * that is not there; the admin token without the header keeps the refusal it always had (401
 * invalid_api_key on a bearer, 403 session_not_allowed on the operator's session), its sentence
 * now saying what to send.
 */
const operatorRefused = (failure: OperatorRefusal, session: boolean): BadRequest | OperatorProjectNotFound | Unauthorized | SessionRefused => {
  switch (failure._tag) {
    case "ProjectHeaderInvalid":
      return refusedFields([{ field: projectHeader, account: null, message: failure.message }])
    case "ProjectHeaderUnknown":
      return new OperatorProjectNotFound({ code: "project_not_found", error: failure.message })
    case "ProjectHeaderMissing":
      return session
        ? new SessionRefused({
          code: "session_not_allowed",
          error: `the operator's dashboard session acts on the REST API only with a ${projectHeader} header naming the project`
        })
        : refusal("invalid_api_key", `invalid API key: ${failure.message}`)
  }
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

const refused = (
  failure: ApiKeyUnknown | ApiKeyRevoked | RateLimited | OperatorRefusal,
  session = false
): Effect.Effect<never, Unauthorized | TooManyRequests | BadRequest | OperatorProjectNotFound | SessionRefused> =>
  failure._tag === "RateLimited"
    ? Effect.zipRight(rateLimitHeaders(failure.verdict), rateLimited(failure))
    : failure._tag === "ApiKeyRevoked" || failure._tag === "ApiKeyUnknown"
    ? Effect.fail(refusal(failure._tag === "ApiKeyRevoked" ? "revoked_api_key" : "invalid_api_key", failure.message))
    : Effect.fail(operatorRefused(failure, session))

/**
 * The bearer key, checked by core's authenticator (see makeAuthenticator): here only what is HTTP's
 * (the header's shape, the key's format, the 401/429 replies and the X-RateLimit-* headers). A
 * request without an Authorization header may come with a dashboard session instead
 * (DashboardSession.ts, where the server keeps sessions): a reviewer's runs as the human key the
 * session was opened with, the operator's as the admin token. The admin token, as a bearer or
 * behind the operator's session, acts as the operator of the project its Herald-Project header
 * names (core's `authenticate` decides; docs/api.md, "The operator").
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const { authenticate } = yield* makeAuthenticator
    const sessions = yield* Effect.serviceOption(DashboardSessions)
    const admit = (hash: ApiKeyHash, presented: Presented, session: boolean) =>
      Effect.matchEffect(authenticate(hash, presented), {
        onFailure: (failure): Effect.Effect<never, Unauthorized | TooManyRequests | BadRequest | OperatorProjectNotFound | SessionRefused | SessionEndedReply> =>
          // The operator's session holds only while its admin token is known, as on the admin API.
          session && presented.adminToken && failure._tag === "ApiKeyUnknown"
            ? Effect.fail(sessionEndedReply(new SessionEnded()))
            : refused(failure, session),
        onSuccess: ({ principal, verdict }) => Effect.zipRight(rateLimitHeaders(verdict), authenticateAs(principal))
      })
    return Authentication.of({
      bearer: (presented) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          requestSession(sessions, request).pipe(
            Effect.catchTag("SessionEnded", (ended) => Effect.fail(sessionEndedReply(ended))),
            Effect.flatMap(Option.match({
              onSome: (session) =>
                admit(session.credentialHash, { adminToken: session.role === "operator", project: projectOf(request.headers) }, true),
              onNone: () => {
                const key = presentedKey(request.headers.authorization, presented)
                return "key" in key
                  ? admit(hashApiKey(key.key), { adminToken: key.adminToken, project: projectOf(request.headers) }, false)
                  : Effect.fail(key)
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
