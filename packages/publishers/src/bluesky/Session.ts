/**
 * A Bluesky account's session as Herald stores it, and calls made with it through the kit's
 * `authorized` (one renewal when the PDS refuses the access token, then the call once more).
 */
import type { Credentials, PlatformCallFailed, SocialAccount } from "@herald/core"
import { Effect, Either, Schema } from "effect"
import { authorized } from "../kit/index.js"
import { notASession } from "./BlueskyErrors.js"
import { dpopKeyOf, DpopPrivateJwk } from "./Dpop.js"
import type { XrpcAuth } from "./Xrpc.js"

/**
 * What an atproto OAuth connection stores beside the tokens: the DPoP key they are bound to, the
 * account's PDS (from its DID document), and the authorization server that renews them.
 */
export const OAuthBinding = Schema.Struct({
  dpop_key: DpopPrivateJwk,
  pds_url: Schema.String,
  issuer: Schema.String,
  token_endpoint: Schema.String,
  client_id: Schema.String
})
export type OAuthBinding = typeof OAuthBinding.Type

/** The stored credentials of a Bluesky account (AccountTokens' conventions plus the account's DID and handle). */
export const StoredSession = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  expires_at: Schema.optional(Schema.String),
  did: Schema.String,
  handle: Schema.String
})
export type StoredSession = typeof StoredSession.Type

/** An OAuth connection's credentials: the session plus its binding. */
export const StoredOAuthSession = Schema.extend(StoredSession, OAuthBinding)
export type StoredOAuthSession = typeof StoredOAuthSession.Type

/** Whether the credentials came from atproto OAuth (they carry a DPoP key) rather than an app-password login. */
export const isOAuthSession = (credentials: Credentials) => credentials.dpop_key !== undefined

export interface Session {
  readonly auth: XrpcAuth
  readonly did: string
  readonly handle: string
  readonly credentials: Credentials
}

const authOf = (credentials: Credentials, token: string): Either.Either<XrpcAuth, PlatformCallFailed> =>
  !isOAuthSession(credentials)
    ? Either.right({ scheme: "Bearer", token })
    : Either.match(Schema.decodeUnknownEither(OAuthBinding)(credentials), {
      onLeft: () => Either.left(notASession("the stored atproto OAuth credentials are incomplete; reconnect the account")),
      onRight: (binding) => Either.right({ scheme: "DPoP", token, key: dpopKeyOf(binding.dpop_key), pdsUrl: binding.pds_url })
    })

/** The session in stored credentials; PlatformCallFailed (auth_expired) when they hold none. */
export const sessionOf = (credentials: Credentials): Either.Either<Session, PlatformCallFailed> =>
  Either.match(Schema.decodeUnknownEither(StoredSession)(credentials), {
    onLeft: () => Either.left(notASession("the stored credentials are not a Bluesky session; reconnect the account")),
    onRight: (stored) =>
      Either.map(authOf(credentials, stored.access_token), (auth) => ({ auth, did: stored.did, handle: stored.handle, credentials }))
  })

/** Runs `call` with the account's session (see `authorized`). */
export const withSession = <A, E, R>(account: SocialAccount, call: (session: Session) => Effect.Effect<A, E, R>) =>
  authorized(account, (credentials) => Effect.flatMap(sessionOf(credentials), call))
