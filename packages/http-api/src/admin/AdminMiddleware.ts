import { HttpServerRequest } from "@effect/platform"
import { DashboardSessions, recordCaller } from "@herald/core"
import { type Context, Effect, Layer, Option } from "effect"
import { hashApiKey } from "../ApiKeys.js"
import { SessionEnded, sessionCredential, sessionEndedReply } from "../DashboardSession.js"
import { AdminUnauthorized } from "../HttpErrors.js"
import { guardBodies } from "../RequestBody.js"
import { guardUrls } from "../RequestUrl.js"
import { AdminAuthentication, AdminBodyGuard, AdminUrlGuard, HeraldAdminApi } from "./AdminApi.js"
import { adminTokenPattern, AdminTokens } from "./AdminTokens.js"

const refuse = (code: "missing_admin_token" | "invalid_admin_token", error: string) =>
  Effect.fail(new AdminUnauthorized({ error, code }))

/**
 * The request's bearer admin token checked, looked up by its SHA-256 (nothing secret is compared,
 * so no timing oracle): for the admin API's middleware and the other pages behind the admin token.
 */
export const adminBearer = Effect.fnUntraced(function*(tokens: Context.Tag.Service<typeof AdminTokens>, request: HttpServerRequest.HttpServerRequest) {
  const header = request.headers.authorization?.trim() ?? ""
  if (header === "") return yield* refuse("missing_admin_token", "missing admin token: send Authorization: Bearer <admin token>")
  const [scheme = "", token = "", ...rest] = header.split(/\s+/)
  if (scheme.toLowerCase() !== "bearer" || rest.length > 0 || !adminTokenPattern.test(token)) {
    return yield* refuse("invalid_admin_token", "invalid admin token")
  }
  if (!(yield* tokens.isKnown(hashApiKey(token)))) return yield* refuse("invalid_admin_token", "invalid admin token")
  // The access log names the admin token by its role: admin tokens have no id of their own.
  yield* recordCaller("admin")
})

/**
 * The bearer admin token (`adminBearer`); or, without an Authorization header, the operator's
 * dashboard session, which holds as long as the token it was opened with is known.
 */
export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.gen(function*() {
    const tokens = yield* AdminTokens
    const sessions = yield* Effect.serviceOption(DashboardSessions)
    return AdminAuthentication.of({
      adminToken: () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const session = yield* sessionCredential(sessions, request).pipe(
            Effect.catchTag("SessionEnded", (ended) => Effect.fail(sessionEndedReply(ended)))
          )
          if (Option.isSome(session)) {
            if (!(yield* tokens.isKnown(session.value))) return yield* Effect.fail(sessionEndedReply(new SessionEnded()))
            return yield* recordCaller("admin")
          }
          return yield* adminBearer(tokens, request)
        })
    })
  })
)

/** Admin bodies are small JSON documents. */
export const adminBodyLimit = 64 * 1024

export const AdminBodyGuardLive = Layer.sync(
  AdminBodyGuard,
  () => guardBodies(HeraldAdminApi, { "application/json": adminBodyLimit })
)

export const AdminUrlGuardLive = Layer.sync(AdminUrlGuard, () => guardUrls(HeraldAdminApi))

/** The SDK's admin routes (createHerald's handler of its own, reached only in process): the embedding service is the operator. */
export const SdkAdminAuthenticationLive = Layer.succeed(AdminAuthentication, AdminAuthentication.of({ adminToken: () => Effect.void }))
