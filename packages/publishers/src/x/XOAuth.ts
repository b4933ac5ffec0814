import { HttpClientRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { asRead, oauth2Provider, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { exchange, withToken } from "./XCall.js"
import { UsersMe } from "./XWire.js"

/**
 * What Herald asks of an X account: posting and deleting (tweet.write, with tweet.read and
 * users.read, which POST/DELETE /2/tweets declare), media uploads and alt text (media.write), and
 * a refresh token (offline.access).
 */
export const xScopes = ["tweet.read", "tweet.write", "users.read", "offline.access", "media.write"] as const

/**
 * OAuth 2.0 authorization code with PKCE S256 (docs.x.com, "OAuth 2.0 Authorization Code Flow with
 * PKCE"): consent at <auth>/i/oauth2/authorize, tokens from <api>/2/oauth2/token. A confidential
 * client (a secret configured) authenticates with HTTP Basic; a public one sends its client_id in
 * the body. Access tokens last 2 hours; refresh tokens rotate, so the newest one is always kept.
 * The account is identified by GET /2/users/me.
 */
export const xOAuth = (endpoints: PlatformEndpoints, client: PlatformClient) =>
  oauth2Provider({
    endpoints,
    authorizePath: "/i/oauth2/authorize",
    tokenUrl: `${endpoints.apiBaseUrl}/2/oauth2/token`,
    scopes: xScopes,
    clientAuthentication: Option.isSome(endpoints.clientSecret) ? "basic" : "body",
    identify: (credentials) =>
      asRead(
        Effect.map(
          exchange(client.read, HttpClientRequest.get("/2/users/me").pipe(withToken(credentials), HttpClientRequest.acceptJson), UsersMe),
          ({ data }) => ({ platformAccountId: data.id, username: data.username })
        )
      )
  })
