import { HttpServerRequest } from "@effect/platform"
import { recordCaller } from "@herald/core"
import { type Context, Effect, Layer } from "effect"
import { hashApiKey } from "../ApiKeys.js"
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

export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.map(AdminTokens, (tokens) =>
    AdminAuthentication.of({
      adminToken: () => Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => adminBearer(tokens, request))
    }))
)

/** Admin bodies are small JSON documents. */
export const adminBodyLimit = 64 * 1024

export const AdminBodyGuardLive = Layer.sync(
  AdminBodyGuard,
  () => guardBodies(HeraldAdminApi, { "application/json": adminBodyLimit })
)

export const AdminUrlGuardLive = Layer.sync(AdminUrlGuard, () => guardUrls(HeraldAdminApi))
