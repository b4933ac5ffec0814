/**
 * A LinkedIn account's token as Herald stores it, and calls made with it (through the kit's
 * `authorized`: one refresh when LinkedIn refuses the token, then the call once more).
 */
import type { HttpClient } from "@effect/platform"
import { type AccountTokens, type Credentials, type MediaStorage, PlatformCallFailed, type SocialAccount } from "@herald/core"
import { Effect, Schema } from "effect"
import { authorized } from "../kit/index.js"

/** What LinkedIn's adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage

/**
 * The stored credentials (AccountTokens' conventions) plus who posts: `member_urn` is the member
 * who granted the token (urn:li:person:{sub}); `author_urn` is the posts' author, the member or an
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
  readonly stored: StoredToken
}

export const credentialsUnusable = () =>
  new PlatformCallFailed({
    error: { category: "auth_expired", code: "credentials_unusable", message: "the stored credentials are not a LinkedIn token with an author; reconnect the account" },
    retryAfterMs: null
  })

/** The token in stored credentials. */
export const tokenOf = (credentials: Credentials): Effect.Effect<Token, PlatformCallFailed> =>
  Effect.mapBoth(Schema.decodeUnknown(StoredToken)(credentials), {
    onFailure: credentialsUnusable,
    onSuccess: (stored) => ({ accessToken: stored.access_token, author: stored.author_urn, stored })
  })

export const isOrganization = (urn: string) => urn.startsWith("urn:li:organization:")

/** Runs `call` with the account's token, refreshed once if LinkedIn refuses it. */
export const withToken = <A, E, R>(account: SocialAccount, call: (token: Token) => Effect.Effect<A, E, R>) =>
  authorized(account, (credentials) => Effect.flatMap(tokenOf(credentials), call))
