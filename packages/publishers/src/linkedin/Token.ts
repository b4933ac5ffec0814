/**
 * A LinkedIn account's token as Herald stores it, and calls made with it: one refresh when
 * LinkedIn refuses the access token, then the call once more.
 */
import type { HttpClient } from "@effect/platform"
import type { Credentials, PlatformCallFailed, SocialAccount } from "@herald/core"
import { Effect, Either, Schema } from "effect"
import { AccountTokens, type MediaBytes } from "./KitShim.js"
import { isTokenRefusal } from "./LinkedinErrors.js"

/** What LinkedIn's adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaBytes

/**
 * The stored credentials (KIT-SPEC conventions) plus who posts: `member_urn` is the member who
 * granted the token (urn:li:person:{sub}); `author_urn` is the post's author, the member or an
 * organisation the member administers (urn:li:organization:{id}).
 */
export const StoredToken = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.optional(Schema.String),
  expires_at: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String),
  member_urn: Schema.String,
  author_urn: Schema.String
})
export type StoredToken = typeof StoredToken.Type

export interface Token {
  readonly accessToken: string
  readonly author: string
  readonly credentials: Credentials
}

/** The token in stored credentials; a reason when they are not LinkedIn's. */
export const tokenOf = (credentials: Credentials): Either.Either<Token, string> =>
  Either.map(
    Either.mapLeft(Schema.decodeUnknownEither(StoredToken)(credentials), () => "the stored credentials are not a LinkedIn token with an author"),
    (stored) => ({ accessToken: stored.access_token, author: stored.author_urn, credentials })
  )

export const isOrganization = (urn: string) => urn.startsWith("urn:li:organization:")

/**
 * Runs `call` with the account's token; when LinkedIn refuses it (401), refreshes once
 * (AccountTokens.afterRefusal) and runs it again. A second refusal is the call's.
 */
export const withToken = <A, E, R, N>(
  account: SocialAccount,
  call: (token: Token) => Effect.Effect<A, E, R>,
  noToken: (failed: PlatformCallFailed | string) => N
): Effect.Effect<A, E | N, R | AccountTokens> =>
  Effect.gen(function*() {
    const tokens = yield* AccountTokens
    const open = (credentials: Credentials) =>
      Either.match(tokenOf(credentials), {
        onLeft: (reason): Effect.Effect<Token, N> => Effect.fail(noToken(reason)),
        onRight: (token) => Effect.succeed(token)
      })
    const first = yield* tokens.current(account).pipe(Effect.mapError(noToken), Effect.flatMap(open))
    return yield* call(first).pipe(
      Effect.catchIf((failure): boolean => isTokenRefusal(failure), () =>
        tokens.afterRefusal(account, first.credentials).pipe(
          Effect.mapError(noToken),
          Effect.flatMap(open),
          Effect.flatMap(call)
        ))
    )
  })
