/**
 * App-password login: com.atproto.server.createSession opens a session (an access JWT good for
 * about two hours and a refresh JWT for 90 days), com.atproto.server.refreshSession renews it with
 * the refresh JWT, which it also rotates. createSession is tightly rate limited (30 per 5 minutes,
 * 300 a day per account), so Herald logs in once at connect time and only refreshes afterwards.
 */
import { type Credentials, type PasswordLogin, PlatformCallFailed, type TokenGrant } from "@herald/core"
import { DateTime, Effect, Either, Option, Redacted, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { inactiveAccount, notASession } from "./BlueskyErrors.js"
import { StoredSession } from "./Session.js"
import { procedure, send } from "./Xrpc.js"

/** The lexicon's reply to createSession and refreshSession (the fields Herald keeps). */
const SessionReply = Schema.Struct({
  accessJwt: Schema.String,
  refreshJwt: Schema.String,
  did: Schema.String,
  handle: Schema.String,
  active: Schema.optional(Schema.Boolean),
  status: Schema.optional(Schema.String)
})
type SessionReply = typeof SessionReply.Type

const JwtClaims = Schema.parseJson(Schema.Struct({ exp: Schema.Number }))

/** When the access JWT expires, from its own `exp` claim; null when it carries none. */
const expiryOf = (jwt: string): DateTime.Utc | null => {
  const payload = jwt.split(".")[1] ?? ""
  return Option.getOrNull(
    Option.flatMap(
      Schema.decodeUnknownOption(JwtClaims)(Buffer.from(payload, "base64url").toString("utf8")),
      (claims) => DateTime.make(claims.exp * 1000)
    )
  )
}

const grantOf = (reply: SessionReply): TokenGrant => {
  const expiresAt = expiryOf(reply.accessJwt)
  const stored: StoredSession = {
    access_token: reply.accessJwt,
    refresh_token: reply.refreshJwt,
    ...(expiresAt === null ? {} : { expires_at: DateTime.formatIso(expiresAt) }),
    did: reply.did,
    handle: reply.handle
  }
  return { credentials: stored, expiresAt }
}

/** A session the PDS opened for an account it has taken down or the owner deactivated is no connection. */
const checked = (reply: SessionReply) => {
  const inactive = inactiveAccount(reply)
  return inactive === null
    ? Effect.succeed(reply)
    : Effect.fail(new PlatformCallFailed({ error: { category: "auth_expired", ...inactive }, retryAfterMs: null }))
}

/** Needs only the platform's client, so that whatever renews sessions can be built before the adapters. */
export const blueskyLogin = (client: PlatformClient): PasswordLogin => ({
  platform: "bluesky",
  login: ({ identifier, password }) =>
    asRead(send(client, {
      kind: "read",
      request: procedure("com.atproto.server.createSession", { identifier, password: Redacted.value(password) }),
      reply: SessionReply
    })).pipe(
      Effect.flatMap(checked),
      Effect.map((reply) => ({ ...grantOf(reply), platformAccountId: reply.did, username: reply.handle }))
    ),
  refresh: (credentials: Credentials) =>
    Either.match(Schema.decodeUnknownEither(StoredSession)(credentials), {
      onLeft: () => Effect.fail(notASession("the stored credentials hold no Bluesky session to refresh")),
      onRight: (stored) =>
        asRead(send(client, {
          kind: "read",
          request: procedure("com.atproto.server.refreshSession", undefined, { scheme: "Bearer", token: stored.refresh_token }),
          reply: SessionReply
        })).pipe(Effect.flatMap(checked), Effect.map(grantOf))
    })
})
