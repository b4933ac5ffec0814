/**
 * A YouTube account's token as Herald stores it (AccountTokens' conventions: access_token,
 * refresh_token, expires_at, scope) and calls made with it (through the kit's `authorized`: one
 * refresh when Google refuses the token, then the call once more).
 */
import type { HttpClient } from "@effect/platform"
import {
  type AccountTokens,
  type Credentials,
  type MediaStorage,
  PlatformCallFailed,
  type PlatformQuotas,
  type PublishCheckpoints,
  type SocialAccount,
  type VideoFrames
} from "@herald/core"
import { Effect } from "effect"
import { accessToken, authorized } from "../kit/index.js"

/** What YouTube's adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints | PlatformQuotas | VideoFrames

export interface Token {
  readonly accessToken: string
  readonly scopes: ReadonlyArray<string>
}

const scopesOf = (credentials: Credentials): ReadonlyArray<string> =>
  typeof credentials.scope === "string" ? credentials.scope.split(/\s+/).filter((scope) => scope !== "") : []

const tokenOf = (credentials: Credentials): Effect.Effect<Token, PlatformCallFailed> => {
  const token = accessToken(credentials)
  return token === ""
    ? Effect.fail(new PlatformCallFailed({
      error: { category: "auth_expired", code: "credentials_unusable", message: "the stored credentials hold no Google access token; reconnect the account" },
      retryAfterMs: null
    }))
    : Effect.succeed({ accessToken: token, scopes: scopesOf(credentials) })
}

/** Runs `call` with the account's token, refreshed once if Google refuses it. */
export const withToken = <A, E, R>(account: SocialAccount, call: (token: Token) => Effect.Effect<A, E, R>) =>
  authorized(account, (credentials) => Effect.flatMap(tokenOf(credentials), call))
