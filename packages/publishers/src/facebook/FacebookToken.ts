/**
 * A Facebook Page account's credentials as Herald stores them: the Page's token (obtained with a
 * long-lived user token, it has no expiry), the Page, and the long-lived user token it came from,
 * kept so a Page token Facebook stops taking can be asked for again while the user token lives
 * (about 60 days; Facebook has no refresh grant, so after that only a new login helps).
 */
import type { HttpClient } from "@effect/platform"
import { type AccountTokens, type Credentials, type MediaStorage, PlatformCallFailed, type PublishCheckpoints, type SocialAccount } from "@herald/core"
import { Effect, Schema } from "effect"
import { authorized } from "../kit/index.js"

/** What Facebook's adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints

export const StoredToken = Schema.Struct({
  access_token: Schema.String,
  page_id: Schema.String,
  page_name: Schema.String,
  user_token: Schema.String,
  user_token_expires_at: Schema.optional(Schema.String)
})
export type StoredToken = typeof StoredToken.Type

export const credentialsUnusable = () =>
  new PlatformCallFailed({
    error: { category: "auth_expired", code: "credentials_unusable", message: "the stored credentials are not a Facebook Page token with its Page; reconnect the account" },
    retryAfterMs: null
  })

export const tokenOf = (credentials: Credentials): Effect.Effect<StoredToken, PlatformCallFailed> =>
  Effect.mapError(Schema.decodeUnknown(StoredToken)(credentials), credentialsUnusable)

/** Runs `call` with the Page's token, asked for again once if Facebook refuses it. */
export const withToken = <A, E, R>(account: SocialAccount, call: (token: StoredToken) => Effect.Effect<A, E, R>) =>
  authorized(account, (credentials) => Effect.flatMap(tokenOf(credentials), call))
