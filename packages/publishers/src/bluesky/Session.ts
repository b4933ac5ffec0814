/**
 * A Bluesky account's session as Herald stores it, and calls made with it through the kit's
 * `authorized` (one renewal when the PDS refuses the access token, then the call once more).
 */
import type { Credentials, PlatformCallFailed, SocialAccount } from "@herald/core"
import { Effect, Either, Schema } from "effect"
import { authorized } from "../kit/index.js"
import { notASession } from "./BlueskyErrors.js"

/** The stored credentials of a Bluesky account (AccountTokens' conventions plus the account's DID and handle). */
export const StoredSession = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  expires_at: Schema.optional(Schema.String),
  did: Schema.String,
  handle: Schema.String
})
export type StoredSession = typeof StoredSession.Type

export interface Session {
  readonly accessJwt: string
  readonly did: string
  readonly handle: string
  readonly credentials: Credentials
}

/** The session in stored credentials; PlatformCallFailed (auth_expired) when they hold none. */
export const sessionOf = (credentials: Credentials): Either.Either<Session, PlatformCallFailed> =>
  Either.match(Schema.decodeUnknownEither(StoredSession)(credentials), {
    onLeft: () => Either.left(notASession("the stored credentials are not a Bluesky session; reconnect the account")),
    onRight: (stored) => Either.right({ accessJwt: stored.access_token, did: stored.did, handle: stored.handle, credentials })
  })

/** Runs `call` with the account's session (see `authorized`). */
export const withSession = <A, E, R>(account: SocialAccount, call: (session: Session) => Effect.Effect<A, E, R>) =>
  authorized(account, (credentials) => Effect.flatMap(sessionOf(credentials), call))
