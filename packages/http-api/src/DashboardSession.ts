import { createHash, randomBytes } from "node:crypto"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { type ApiKeyHash, type DashboardSession, DashboardSessions, makeAuthenticator, type Principal, type SessionRole } from "@herald/core"
import { Data, DateTime, Duration, Effect, Option } from "effect"
import { apiKeyPattern, hashApiKey, secretsEqual } from "./ApiKeys.js"
import { HttpApiConfig } from "./ApprovalLinks.js"
import { adminTokenPattern, AdminTokens } from "./admin/AdminTokens.js"
import { errorResponse, type HttpError, refusedFields, SessionEndedReply, SessionRefused, Unauthorized, UnsupportedMediaType } from "./HttpErrors.js"
import { readJson } from "./RequestBody.js"

/**
 * The dashboard's sign-in: a person presents the admin token (the operator, every project, through
 * the admin API) or a human key (a reviewer, the key's project, through the REST API) once, and
 * gets a session cookie in its place, so no key is kept in the page. The cookie is HttpOnly,
 * SameSite=Strict and Secure behind https; every change sent with it carries the session's CSRF
 * token in X-CSRF-Token (the token is not a cookie, so only the signed-in page has it). The REST
 * and admin APIs accept the cookie in place of the bearer credential (`sessionCredential`) and
 * map it to the principal that credential has, rate limit and revocation included.
 */

export const sessionCookie = "herald_session"
export const csrfHeader = "x-csrf-token"
/** A session ends this long after sign-in, whatever happens in between: a working day. */
export const sessionLifetime = Duration.hours(12)

const tokenPattern = /^hs_[0-9A-Za-z_-]{43}$/
const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex")
/** Derived from the session token, so it needs no storage and is worth nothing without the cookie. */
const csrfTokenOf = (token: string) => createHash("sha256").update(`herald-csrf-v1\n${token}`).digest("base64url")
const csrfMatches = (presented: string | undefined, token: string) =>
  presented !== undefined && secretsEqual(Buffer.from(presented), Buffer.from(csrfTokenOf(token)))

/** A session cookie whose session is unknown or over; each API answers it with its own 401. */
export class SessionEnded extends Data.TaggedError("SessionEnded")<object> {
  override get message(): string {
    return "the dashboard session has ended: sign in again"
  }
}

export const sessionEndedReply = (ended: SessionEnded) => new SessionEndedReply({ code: "session_ended", error: ended.message })

const changes = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method)

/**
 * The live session behind the request's session cookie, its CSRF token checked on a change; none
 * when the request has an Authorization header or no cookie (the bearer rules apply then).
 */
export const requestSession = (
  sessions: Option.Option<DashboardSessions["Type"]>,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Option.Option<DashboardSession>, SessionEnded | SessionRefused> => {
  const token = request.cookies[sessionCookie]
  if (Option.isNone(sessions) || request.headers.authorization !== undefined || token === undefined) {
    return Effect.succeed(Option.none())
  }
  if (!tokenPattern.test(token)) return Effect.fail(new SessionEnded())
  return Effect.flatMap(DateTime.now, (now) => sessions.value.find(tokenHash(token), now)).pipe(
    Effect.flatMap(Option.match({
      onNone: (): Effect.Effect<Option.Option<DashboardSession>, SessionEnded | SessionRefused> => Effect.fail(new SessionEnded()),
      onSome: (session): Effect.Effect<Option.Option<DashboardSession>, SessionEnded | SessionRefused> =>
        changes(request.method) && !csrfMatches(request.headers[csrfHeader], token)
          ? Effect.fail(new SessionRefused({ code: "csrf_token_invalid", error: `a change made with a dashboard session needs its ${csrfHeader} header` }))
          : Effect.succeed(Option.some(session))
    }))
  )
}

/** The admin API's refusal of a reviewer's session. */
export const reviewerOnAdminApi = () =>
  new SessionRefused({
    code: "session_not_allowed",
    error: "a reviewer's dashboard session uses the REST API; sign in with the admin token to manage projects"
  })

/**
 * The credential behind the request's operator session, for the admin API (`requestSession`); a
 * reviewer's session is refused there.
 */
export const sessionCredential = (
  sessions: Option.Option<DashboardSessions["Type"]>,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Option.Option<ApiKeyHash>, SessionEnded | SessionRefused> =>
  Effect.flatMap(requestSession(sessions, request), (found) =>
    Option.isSome(found) && found.value.role !== "operator"
      ? Effect.fail(reviewerOnAdminApi())
      : Effect.succeed(Option.map(found, (session) => session.credentialHash)))

/** What the page learns at sign-in and from GET /dashboard/session: never the credential. */
const sessionReply = (token: string, role: SessionRole, expiresAt: DateTime.Utc, principal: Option.Option<Principal>) => ({
  role,
  csrf_token: csrfTokenOf(token),
  expires_at: DateTime.formatIso(expiresAt),
  ...Option.match(principal, {
    onNone: () => ({}),
    onSome: (p) => ({ project_id: p.projectId, key_id: p.keyId, key_name: p.keyName, scopes: p.scopes })
  })
})

const failure = (error: HttpError) => Effect.succeed(errorResponse(error))
const ended = () => failure(sessionEndedReply(new SessionEnded()))
const clearCookie = HttpServerResponse.unsafeSetCookie(sessionCookie, "", { path: "/", httpOnly: true, sameSite: "strict", maxAge: 0 })

/**
 * POST /dashboard/session { credential } signs in, GET tells the page who it is (and its CSRF
 * token after a reload), DELETE signs out, ending the session on the server. Needs
 * DashboardSessions, AdminTokens, ApiKeyStore, RateLimitStore and HttpApiConfig.
 */
export const DashboardSessionLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const sessions = yield* DashboardSessions
    const admins = yield* AdminTokens
    const { identify } = yield* makeAuthenticator
    const { baseUrl } = yield* HttpApiConfig

    /** The principal a reviewer's credential has now; none for the operator; SessionEnded once it is revoked. */
    const principalOf = (role: SessionRole, credentialHash: ApiKeyHash) =>
      role === "operator"
        ? Effect.filterOrFail(admins.isKnown(credentialHash), (known) => known, () => new SessionEnded()).pipe(Effect.as(Option.none<Principal>()))
        : identify(credentialHash).pipe(Effect.mapError(() => new SessionEnded()), Effect.map(Option.some))

    const signIn = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!(request.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
        return yield* failure(new UnsupportedMediaType({ code: "unsupported_media_type", error: "send the credential as application/json" }))
      }
      const body = yield* readJson(request, 4096)
      const credential = typeof body === "object" && body !== null && "credential" in body && typeof body.credential === "string"
        ? body.credential.trim()
        : ""
      if (credential === "") {
        return yield* failure(refusedFields([{ field: "credential", account: null, message: "the admin token or a human API key is required" }]))
      }
      const hash = hashApiKey(credential)
      let role: SessionRole
      let principal = Option.none<Principal>()
      if (adminTokenPattern.test(credential) && (yield* admins.isKnown(hash))) {
        role = "operator"
      } else if (apiKeyPattern.test(credential)) {
        principal = yield* Effect.option(identify(hash))
        if (Option.isNone(principal)) return yield* failure(new Unauthorized({ code: "invalid_api_key", error: "unknown or revoked credential" }))
        if (principal.value.kind === "agent") {
          return yield* failure(new SessionRefused({ code: "session_not_allowed", error: "agent keys cannot sign in to the dashboard: a person signs in with a human key or the admin token" }))
        }
        role = "reviewer"
      } else {
        return yield* failure(new Unauthorized({ code: "invalid_api_key", error: "unknown or revoked credential" }))
      }
      const token = `hs_${randomBytes(32).toString("base64url")}`
      const now = yield* DateTime.now
      const expiresAt = DateTime.addDuration(now, sessionLifetime)
      yield* sessions.open(tokenHash(token), { role, credentialHash: hash, expiresAt }, now)
      const secure = baseUrl.startsWith("https:") || request.headers["x-forwarded-proto"] === "https"
      return HttpServerResponse.unsafeJson(sessionReply(token, role, expiresAt, principal), { status: 201, headers: { "cache-control": "no-store" } }).pipe(
        HttpServerResponse.unsafeSetCookie(sessionCookie, token, {
          path: "/",
          httpOnly: true,
          sameSite: "strict",
          secure,
          expires: DateTime.toDateUtc(expiresAt)
        })
      )
    }).pipe(Effect.catchAll(failure))

    const current = (request: HttpServerRequest.HttpServerRequest) => {
      const token = request.cookies[sessionCookie]
      if (token === undefined || !tokenPattern.test(token)) return Effect.succeed(Option.none<readonly [string, DashboardSession]>())
      return Effect.flatMap(DateTime.now, (now) => sessions.find(tokenHash(token), now)).pipe(
        Effect.map(Option.map((session) => [token, session] as const))
      )
    }

    const whoAmI = Effect.gen(function*() {
      const found = yield* current(yield* HttpServerRequest.HttpServerRequest)
      if (Option.isNone(found)) return yield* ended()
      const [token, session] = found.value
      return yield* principalOf(session.role, session.credentialHash).pipe(
        Effect.map((principal) =>
          HttpServerResponse.unsafeJson(sessionReply(token, session.role, session.expiresAt, principal), { headers: { "cache-control": "no-store" } })),
        Effect.catchTag("SessionEnded", () => Effect.zipRight(sessions.end(tokenHash(token)), ended()))
      )
    })

    const signOut = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const found = yield* current(request)
      if (Option.isNone(found)) return clearCookie(HttpServerResponse.empty({ status: 204 }))
      const [token] = found.value
      if (!csrfMatches(request.headers[csrfHeader], token)) {
        return yield* failure(new SessionRefused({ code: "csrf_token_invalid", error: `signing out needs the session's ${csrfHeader} header` }))
      }
      yield* sessions.end(tokenHash(token))
      return clearCookie(HttpServerResponse.empty({ status: 204 }))
    })

    yield* router.post("/dashboard/session", signIn)
    yield* router.get("/dashboard/session", whoAmI)
    yield* router.del("/dashboard/session", signOut)
  })
)
