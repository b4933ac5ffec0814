/**
 * A Meta login's token as Herald stores it (Threads, Instagram Login): the long-lived user token
 * (60 days, refreshed in place: Meta has no separate refresh token), its expiry, and the user
 * it is for.
 */
import { type Credentials, PlatformCallFailed, type SocialAccount } from "@herald/core"
import { Effect, Schema } from "effect"
import { authorized } from "../kit/index.js"

export const StoredToken = Schema.Struct({
  access_token: Schema.String,
  expires_at: Schema.optional(Schema.String),
  user_id: Schema.String,
  username: Schema.String
})
export type StoredToken = typeof StoredToken.Type

export const userTokens = (network: string) => {
  const credentialsUnusable = () =>
    new PlatformCallFailed({
      error: { category: "auth_expired", code: "credentials_unusable", message: `the stored credentials are not a ${network} token with its user; reconnect the account` },
      retryAfterMs: null
    })

  const tokenOf = (credentials: Credentials): Effect.Effect<StoredToken, PlatformCallFailed> =>
    Effect.mapError(Schema.decodeUnknown(StoredToken)(credentials), credentialsUnusable)

  /** Runs `call` with the account's token, refreshed once if the platform refuses it. */
  const withToken = <A, E, R>(account: SocialAccount, call: (token: StoredToken) => Effect.Effect<A, E, R>) =>
    authorized(account, (credentials) => Effect.flatMap(tokenOf(credentials), call))

  return { credentialsUnusable, tokenOf, withToken }
}
