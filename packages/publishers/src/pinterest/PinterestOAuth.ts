/**
 * Pinterest's OAuth (developers.pinterest.com, API v5 /oauth/token): the consent page on
 * www.pinterest.com/oauth/ (scopes comma separated; no PKCE documented), the code exchanged at
 * api.pinterest.com/v5/oauth/token with the app's credentials as HTTP Basic, refreshed there with
 * the refresh token. Refresh tokens are continuous: each refresh answers a new one, which Herald
 * keeps, so a connection used at least every 60 days never lapses.
 */
import type { OAuthProvider, PlatformIdentity } from "@herald/core"
import { type Context, Effect, Schema } from "effect"
import { asRead, oauth2Provider, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { api, sendJson } from "./PinterestApi.js"
import { type Needs, tokenOf } from "./PinterestToken.js"

/**
 * What Herald asks for: who the user is, their boards (public and secret) and pins, written and
 * read (takedown, metrics, reconcile).
 */
export const pinterestScopes = [
  "user_accounts:read",
  "boards:read",
  "boards:read_secret",
  "boards:write",
  "pins:read",
  "pins:write",
  "pins:write_secret"
] as const

export const UserAccount = Schema.Struct({ id: Schema.optional(Schema.String), username: Schema.String })

export const userAccount = (client: PlatformClient, accessToken: string) =>
  sendJson(client.read, api("GET", "user_account", accessToken), "read", UserAccount)

export const pinterestOAuth = (
  endpoints: PlatformEndpoints,
  client: PlatformClient,
  context: Context.Context<Needs>
): Effect.Effect<OAuthProvider> =>
  oauth2Provider({
    endpoints,
    authorizePath: "/oauth/",
    tokenUrl: `${endpoints.apiBaseUrl}/v5/oauth/token`,
    scopes: pinterestScopes,
    clientAuthentication: "basic",
    pkce: false,
    scopeSeparator: ",",
    identify: (credentials) =>
      Effect.gen(function*() {
        const token = yield* tokenOf(credentials)
        const user = yield* userAccount(client, token.access_token).pipe(asRead)
        return { platformAccountId: user.id ?? user.username, username: user.username } satisfies PlatformIdentity
      })
  }).pipe(Effect.provide(context))
