/**
 * A Threads account's token as Herald stores it: the long-lived user token (60 days, refreshed
 * in place: Threads has no separate refresh token), its expiry, and the Threads user it is for.
 */
import type { HttpClient } from "@effect/platform"
import { type AccountTokens, type Credentials, type MediaStorage, PlatformCallFailed, type PublishCheckpoints, type SocialAccount } from "@herald/core"
import { Effect, Schema } from "effect"
import { authorized } from "../kit/index.js"

/** What Threads' adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints

export const StoredToken = Schema.Struct({
  access_token: Schema.String,
  expires_at: Schema.optional(Schema.String),
  user_id: Schema.String,
  username: Schema.String
})
export type StoredToken = typeof StoredToken.Type

export const credentialsUnusable = () =>
  new PlatformCallFailed({
    error: { category: "auth_expired", code: "credentials_unusable", message: "the stored credentials are not a Threads token with its user; reconnect the account" },
    retryAfterMs: null
  })

export const tokenOf = (credentials: Credentials): Effect.Effect<StoredToken, PlatformCallFailed> =>
  Effect.mapError(Schema.decodeUnknown(StoredToken)(credentials), credentialsUnusable)

/** Runs `call` with the account's token, refreshed once if Threads refuses it. */
export const withToken = <A, E, R>(account: SocialAccount, call: (token: StoredToken) => Effect.Effect<A, E, R>) =>
  authorized(account, (credentials) => Effect.flatMap(tokenOf(credentials), call))
