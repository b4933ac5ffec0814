/**
 * A TikTok account's grant as Herald stores it: the access token (24 hours by the Login Kit docs,
 * 2 hours on pages updated since; Herald reads expires_in), the refresh token (365 days, or 180;
 * TikTok may rotate it, so the newest one answered is the one kept), the creator's open_id and
 * username (post URLs name @username).
 */
import type { HttpClient } from "@effect/platform"
import { type AccountTokens, type Credentials, type MediaStorage, PlatformCallFailed, type PublishCheckpoints, type SocialAccount } from "@herald/core"
import { Effect, Schema } from "effect"
import { authorized } from "../kit/index.js"

/** What TikTok's adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints

export const StoredToken = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  /** When the refresh token runs out (ISO 8601, UTC): past it only a reconnect helps. */
  refresh_expires_at: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String),
  open_id: Schema.String,
  username: Schema.String
})
export type StoredToken = typeof StoredToken.Type

export const credentialsUnusable = () =>
  new PlatformCallFailed({
    error: { category: "auth_expired", code: "credentials_unusable", message: "the stored credentials are not a TikTok grant with its creator; reconnect the account" },
    retryAfterMs: null
  })

export const tokenOf = (credentials: Credentials): Effect.Effect<StoredToken, PlatformCallFailed> =>
  Effect.mapError(Schema.decodeUnknown(StoredToken)(credentials), credentialsUnusable)

/** Runs `call` with the account's grant, refreshed once if TikTok refuses the access token. */
export const withToken = <A, E, R>(account: SocialAccount, call: (token: StoredToken) => Effect.Effect<A, E, R>) =>
  authorized(account, (credentials) => Effect.flatMap(tokenOf(credentials), call))
