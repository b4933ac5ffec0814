/**
 * A Pinterest account's grant as Herald stores it (AccountTokens' conventions): the access token
 * (30 days), the refresh token (continuous: each refresh hands out a new one, good for another
 * 60 days), the granted scopes, and the user.
 */
import type { HttpClient } from "@effect/platform"
import {
  type AccountTokens,
  type Credentials,
  type MediaStorage,
  type PinterestBoards,
  PlatformCallFailed,
  type PublishCheckpoints,
  type SocialAccount
} from "@herald/core"
import { Effect, Schema } from "effect"
import { authorized } from "../kit/index.js"

/** What Pinterest's adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints | PinterestBoards

export const StoredToken = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.optional(Schema.String),
  expires_at: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})
export type StoredToken = typeof StoredToken.Type

export const credentialsUnusable = () =>
  new PlatformCallFailed({
    error: { category: "auth_expired", code: "credentials_unusable", message: "the stored credentials are not a Pinterest token; reconnect the account" },
    retryAfterMs: null
  })

export const tokenOf = (credentials: Credentials): Effect.Effect<StoredToken, PlatformCallFailed> =>
  Effect.mapError(Schema.decodeUnknown(StoredToken)(credentials), credentialsUnusable)

/** The granted scopes (kept space separated). */
export const scopesOf = (token: StoredToken) => (token.scope ?? "").split(" ").filter((scope) => scope !== "")

/** Runs `call` with the account's token, refreshed once if Pinterest refuses it. */
export const withToken = <A, E, R>(account: SocialAccount, call: (token: StoredToken) => Effect.Effect<A, E, R>) =>
  authorized(account, (credentials) => Effect.flatMap(tokenOf(credentials), call))
