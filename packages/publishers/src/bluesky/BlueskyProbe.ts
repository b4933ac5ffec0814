/**
 * The connection check: com.atproto.server.getSession with the account's session. Bluesky's
 * sessions carry no scopes, so nothing can be missing; a refused session, or an account the PDS
 * no longer serves (taken down, deactivated), is Refused.
 */
import { ConnectionHealth, type ConnectionProbe, PlatformCallFailed } from "@herald/core"
import { type Context, DateTime, Effect, Option, Schema } from "effect"
import { readFailed } from "./BlueskyErrors.js"
import { type Needs, StoredSession, withSession } from "./Session.js"
import { query, send } from "./Xrpc.js"

const SessionInfo = Schema.Struct({
  did: Schema.String,
  handle: Schema.String,
  active: Schema.optional(Schema.Boolean),
  status: Schema.optional(Schema.String)
})

const expiryOf = (credentials: unknown): DateTime.Utc | null =>
  Option.getOrNull(
    Option.flatMap(
      Schema.decodeUnknownOption(StoredSession)(credentials),
      (stored) => stored.expires_at === undefined ? Option.none() : DateTime.make(stored.expires_at)
    )
  )

const noSession = (failed: PlatformCallFailed | string): PlatformCallFailed =>
  typeof failed === "string"
    ? new PlatformCallFailed({ error: { category: "auth_expired", code: "InvalidToken", message: failed }, retryAfterMs: null })
    : failed

/** A refused session is the probe's answer, not its failure. */
const judged = (failed: PlatformCallFailed): Effect.Effect<ConnectionHealth, PlatformCallFailed> =>
  failed.error.category === "auth_expired"
    ? Effect.succeed(ConnectionHealth.Refused({ code: failed.error.code, message: failed.error.message }))
    : Effect.fail(failed)

const health = (info: typeof SessionInfo.Type, credentials: unknown): ConnectionHealth =>
  info.active === false
    ? ConnectionHealth.Refused({
      code: info.status ?? "AccountInactive",
      message: `the Bluesky account ${info.handle} is not active (${info.status ?? "inactive"})`
    })
    : ConnectionHealth.Alive({ expiresAt: expiryOf(credentials), granted: [], needed: [] })

export const blueskyProbe = (apiBaseUrl: string, context: Context.Context<Needs>): ConnectionProbe => ({
  check: (account) =>
    withSession(
      account,
      (session) =>
        Effect.map(
          send({ kind: "read", request: query(apiBaseUrl, "com.atproto.server.getSession", {}, session.accessJwt), reply: SessionInfo }),
          (info) => health(info, session.credentials)
        ),
      noSession
    ).pipe(
      Effect.catchAll((failure) => judged(failure._tag === "PlatformCallFailed" ? failure : readFailed(failure))),
      Effect.provide(context)
    )
})
