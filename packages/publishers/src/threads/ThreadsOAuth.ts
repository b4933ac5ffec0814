/**
 * Threads' OAuth (developers.facebook.com/docs/threads/get-started): the consent page on
 * threads.net (scopes comma separated, no PKCE: the app authenticates with its secret), the code
 * exchanged at graph.threads.net/oauth/access_token for a one-hour token, that token exchanged at
 * once for a long-lived one (th_exchange_token, 60 days), refreshed in place before it runs out
 * (th_refresh_token; the token must be at least a day old and still valid).
 */
import { HttpClientRequest } from "@effect/platform"
import type { Credentials, OAuthProvider, PlatformIdentity, TokenGrant } from "@herald/core"
import { Clock, type Context, DateTime, Effect, Option, Redacted, Schema } from "effect"
import { asRead, consentUrl, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { tokenCallFailed } from "../meta/GraphCall.js"
import { graph, sendJson } from "./ThreadsApi.js"
import { type Needs, type StoredToken, tokenOf } from "./ThreadsToken.js"

/**
 * What Herald asks for: identity, publishing, insights (metrics), deletes (takedown) and the
 * Instagram story share (crosspost_ig_story). Each needs Meta's app review for accounts other
 * than the app's testers (docs/networks/threads.md).
 */
export const threadsScopes = [
  "threads_basic",
  "threads_content_publish",
  "threads_manage_insights",
  "threads_delete",
  "threads_share_to_instagram"
] as const

const ShortToken = Schema.Struct({ access_token: Schema.String, user_id: Schema.Union(Schema.String, Schema.Number) })
const LongToken = Schema.Struct({ access_token: Schema.String, expires_in: Schema.Number })
export const Me = Schema.Struct({ id: Schema.String, username: Schema.String })

const tokenFailed = (what: string) => tokenCallFailed("Threads", what)

export const threadsOAuth = (
  endpoints: PlatformEndpoints,
  api: PlatformClient,
  context: Context.Context<Needs>
): OAuthProvider => {
  const clientId = Option.getOrElse(endpoints.clientId, () => "")
  const clientSecret = () => Option.match(endpoints.clientSecret, { onNone: () => "", onSome: Redacted.value })

  const me = (accessToken: string) => sendJson(api.read, graph("GET", "me?fields=id,username", accessToken), Me).pipe(asRead)

  const grantOf = (reply: typeof LongToken.Type, who: typeof Me.Type) =>
    Effect.map(Clock.currentTimeMillis, (now): TokenGrant => {
      const expiresAt = DateTime.unsafeMake(now + reply.expires_in * 1000)
      const stored: StoredToken = { access_token: reply.access_token, expires_at: DateTime.formatIso(expiresAt), user_id: who.id, username: who.username }
      return { credentials: stored, expiresAt }
    })

  const exchange: OAuthProvider["exchange"] = ({ code, redirectUri }) =>
    Effect.gen(function*() {
      const short = yield* sendJson(
        api.read,
        HttpClientRequest.post("/oauth/access_token").pipe(HttpClientRequest.bodyUrlParams({
          client_id: clientId,
          client_secret: clientSecret(),
          grant_type: "authorization_code",
          redirect_uri: redirectUri,
          // Threads appends "#_" to the code on its redirect; a browser drops it, a copied URL may not.
          code: code.replace(/#_$/, "")
        })),
        ShortToken
      ).pipe(asRead, Effect.mapError(tokenFailed("authorization code")))
      const long = yield* sendJson(
        api.read,
        HttpClientRequest.get(`/access_token?${new URLSearchParams({ grant_type: "th_exchange_token", client_secret: clientSecret(), access_token: short.access_token })}`),
        LongToken
      ).pipe(asRead, Effect.mapError(tokenFailed("long-lived token exchange")))
      return yield* grantOf(long, yield* me(long.access_token))
    }).pipe(Effect.provide(context))

  const refresh: OAuthProvider["refresh"] = (credentials) =>
    Effect.gen(function*() {
      const stored = yield* tokenOf(credentials)
      const reply = yield* sendJson(
        api.read,
        HttpClientRequest.get(`/refresh_access_token?${new URLSearchParams({ grant_type: "th_refresh_token", access_token: stored.access_token })}`),
        LongToken
      ).pipe(asRead, Effect.mapError(tokenFailed("token refresh")))
      return yield* grantOf(reply, { id: stored.user_id, username: stored.username })
    }).pipe(Effect.provide(context))

  const identify: OAuthProvider["identify"] = (credentials: Credentials) =>
    Effect.gen(function*() {
      const stored = yield* tokenOf(credentials)
      const who = yield* me(stored.access_token)
      return { platformAccountId: who.id, username: who.username } satisfies PlatformIdentity
    }).pipe(Effect.provide(context))

  return {
    platform: "threads",
    start: consentUrl(({ redirectUri, state }) =>
      `${endpoints.authBaseUrl}/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: threadsScopes.join(","),
        response_type: "code",
        state
      })}`),
    exchange,
    refresh,
    identify
  }
}
