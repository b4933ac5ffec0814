/**
 * A Bluesky account's session as Herald stores it, and calls made with it: one renewal when the
 * PDS refuses the access token, then the call once more.
 */
import type { Credentials, PlatformCallFailed, SocialAccount } from "@herald/core"
import { Effect, Either, Schema } from "effect"
import type { HttpClient } from "@effect/platform"
import { AccountTokens, type MediaBytes } from "./KitShim.js"
import { isSessionRefusal } from "./BlueskyErrors.js"

/** What Bluesky's adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaBytes

/** The stored credentials of a Bluesky account (KIT-SPEC conventions plus the account's DID and handle). */
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

/** The session in stored credentials; a reason when they are not one (stored by something else). */
export const sessionOf = (credentials: Credentials): Either.Either<Session, string> =>
  Either.map(
    Either.mapLeft(Schema.decodeUnknownEither(StoredSession)(credentials), () => "the stored credentials are not a Bluesky session"),
    (stored) => ({ accessJwt: stored.access_token, did: stored.did, handle: stored.handle, credentials })
  )

/**
 * Runs `call` with the account's session; when the PDS refuses the access token, renews the
 * session once (AccountTokens.afterRefusal) and runs it again. A second refusal is the call's.
 */
export const withSession = <A, E, R, N>(
  account: SocialAccount,
  call: (session: Session) => Effect.Effect<A, E, R>,
  noSession: (failed: PlatformCallFailed | string) => N
): Effect.Effect<A, E | N, R | AccountTokens> =>
  Effect.gen(function*() {
    const tokens = yield* AccountTokens
    const open = (credentials: Credentials) =>
      Either.match(sessionOf(credentials), {
        onLeft: (reason): Effect.Effect<Session, N> => Effect.fail(noSession(reason)),
        onRight: (session) => Effect.succeed(session)
      })
    const first = yield* tokens.current(account).pipe(Effect.mapError(noSession), Effect.flatMap(open))
    return yield* call(first).pipe(
      Effect.catchIf((failure): boolean => isSessionRefusal(failure), () =>
        tokens.afterRefusal(account, first.credentials).pipe(
          Effect.mapError(noSession),
          Effect.flatMap(open),
          Effect.flatMap(call)
        ))
    )
  })
