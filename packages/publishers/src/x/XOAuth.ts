import { HttpClientRequest } from "@effect/platform"
import type { Credentials, OAuthProvider, TokenGrant } from "@herald/core"
import { DateTime, Effect, Option, Redacted } from "effect"
import { asRead, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { exchange, withToken } from "./XCall.js"
import { TokenReply, UsersMe } from "./XWire.js"

/**
 * What Herald asks of an X account: posting and deleting (tweet.write, with tweet.read and
 * users.read, which POST/DELETE /2/tweets declare), media uploads and alt text (media.write), and
 * a refresh token (offline.access).
 */
export const xScopes = ["tweet.read", "tweet.write", "users.read", "offline.access", "media.write"] as const

/**
 * OAuth 2.0 authorization code with PKCE S256 (docs.x.com, "OAuth 2.0 Authorization Code Flow with
 * PKCE"): consent at <auth>/i/oauth2/authorize, tokens from <api>/2/oauth2/token. A confidential
 * client authenticates with HTTP Basic; a public one sends its client_id in the body. Access tokens
 * last 2 hours; refresh tokens rotate, so the newest one is always the one kept.
 */
export const xOAuth = (endpoints: PlatformEndpoints, client: PlatformClient): OAuthProvider => {
  const clientId = Option.getOrElse(endpoints.clientId, () => "")

  const tokenCall = (form: Record<string, string>, previous?: Credentials) =>
    Effect.gen(function*() {
      const request = HttpClientRequest.post("/2/oauth2/token").pipe(
        (request) =>
          Option.match(endpoints.clientSecret, {
            onNone: () => HttpClientRequest.bodyUrlParams(request, { ...form, client_id: clientId }),
            onSome: (secret) => HttpClientRequest.basicAuth(HttpClientRequest.bodyUrlParams(request, form), clientId, Redacted.value(secret))
          }),
        HttpClientRequest.acceptJson
      )
      const reply = yield* exchange(client.read, request, TokenReply)
      const now = yield* DateTime.now
      const expiresAt = reply.expires_in === undefined ? null : DateTime.add(now, { seconds: reply.expires_in })
      const refreshToken = reply.refresh_token ?? previous?.refresh_token
      const credentials: Credentials = {
        ...previous,
        access_token: reply.access_token,
        ...(typeof refreshToken === "string" ? { refresh_token: refreshToken } : {}),
        ...(expiresAt === null ? {} : { expires_at: DateTime.formatIso(expiresAt) }),
        ...(reply.scope === undefined ? {} : { scope: reply.scope })
      }
      return { credentials, expiresAt } satisfies TokenGrant
    })

  return {
    platform: "x",
    authorizeUrl: ({ codeChallenge, redirectUri, state }) =>
      `${endpoints.authBaseUrl}/i/oauth2/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: xScopes.join(" "),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: "S256"
      })}`,
    exchange: ({ code, codeVerifier, redirectUri }) =>
      asRead(tokenCall({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier })),
    refresh: (credentials) =>
      asRead(tokenCall({ grant_type: "refresh_token", refresh_token: String(credentials.refresh_token ?? "") }, credentials)),
    identify: (credentials) =>
      asRead(
        Effect.map(
          exchange(client.read, HttpClientRequest.get("/2/users/me").pipe(withToken(credentials), HttpClientRequest.acceptJson), UsersMe),
          ({ data }) => ({ platformAccountId: data.id, username: data.username })
        )
      )
  }
}
