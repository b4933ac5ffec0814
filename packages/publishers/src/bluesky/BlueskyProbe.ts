/**
 * The connection check: com.atproto.server.getSession with the account's session. Bluesky's
 * sessions carry no scopes, so nothing can be missing; a refused session, or an account the PDS
 * no longer serves (taken down, deactivated), is Refused.
 */
import { ConnectionHealth, type ConnectionProbe, type PlatformCallFailed } from "@herald/core"
import { type Context, DateTime, Effect, Option, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { inactiveAccount } from "./BlueskyErrors.js"
import type { Needs } from "./BlueskyPublisher.js"
import { StoredSession, withSession } from "./Session.js"
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

/** A refused session is the probe's answer, not its failure. */
const judged = (failed: PlatformCallFailed): Effect.Effect<ConnectionHealth, PlatformCallFailed> =>
  failed.error.category === "auth_expired"
    ? Effect.succeed(ConnectionHealth.Refused({ code: failed.error.code, message: failed.error.message }))
    : Effect.fail(failed)

const health = (info: typeof SessionInfo.Type, credentials: unknown): ConnectionHealth => {
  const inactive = inactiveAccount(info)
  return inactive === null
    ? ConnectionHealth.Alive({ expiresAt: expiryOf(credentials), granted: [], needed: [] })
    : ConnectionHealth.Refused(inactive)
}

export const blueskyProbe = (client: PlatformClient, context: Context.Context<Needs>): ConnectionProbe => ({
  check: (account) =>
    asRead(withSession(account, (session) =>
      Effect.map(
        send(client, { kind: "read", request: query("com.atproto.server.getSession", {}, session.auth), reply: SessionInfo }),
        (info) => health(info, session.credentials)
      ))).pipe(
        Effect.catchAll(judged),
        Effect.provide(context)
      )
})
