/**
 * The OAuth of Meta's own logins (Threads, Instagram Login): a consent page (scopes comma
 * separated, no PKCE: the app authenticates with its secret), the code exchanged at
 * /oauth/access_token for a one-hour token, that token exchanged at once for a long-lived one
 * (GET /access_token, 60 days), refreshed in place before it runs out (GET
 * /refresh_access_token; the token must be at least a day old and still valid).
 */
import { HttpClientRequest } from "@effect/platform"
import { type Credentials, type OAuthProvider, type Platform, type PlatformIdentity, type TokenGrant } from "@herald/core"
import { Clock, type Context, DateTime, Effect, Option, Redacted, Schema } from "effect"
import { asRead, consentUrl, type PlatformCallError, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { sendGraphJson, tokenCallFailed } from "./GraphCall.js"
import { type StoredToken, userTokens } from "./UserToken.js"

/** The code's token: flat, or (as some of Meta's samples show it) inside data[]. */
const Granted = Schema.Struct({ access_token: Schema.String })
const ShortToken = Schema.Union(Granted, Schema.Struct({ data: Schema.NonEmptyArray(Granted) }))
const LongToken = Schema.Struct({ access_token: Schema.String, expires_in: Schema.Number })

export interface UserLoginSettings<R> {
  readonly platform: Platform
  readonly network: string
  readonly scopes: ReadonlyArray<string>
  readonly endpoints: PlatformEndpoints
  /** Where the authorization code is exchanged (Threads: its Graph host; Instagram: api.instagram.com). */
  readonly codeClient: PlatformClient
  /** The Graph host: the long-lived exchange, the refresh, the user. */
  readonly api: PlatformClient
  readonly grants: { readonly exchange: string; readonly refresh: string }
  /** The user the token is for. */
  readonly me: (accessToken: string) => Effect.Effect<{ readonly id: string; readonly username: string }, PlatformCallError, R>
  readonly context: Context.Context<R>
}

export const userLogin = <R>(settings: UserLoginSettings<R>): OAuthProvider => {
  const { api, codeClient, context, endpoints, grants, network } = settings
  const { tokenOf } = userTokens(network)
  const clientId = Option.getOrElse(endpoints.clientId, () => "")
  const clientSecret = () => Option.match(endpoints.clientSecret, { onNone: () => "", onSome: Redacted.value })

  const tokenFailed = (what: string) => tokenCallFailed(network, what)

  const me = (accessToken: string) => settings.me(accessToken).pipe(asRead)

  const grantOf = (reply: typeof LongToken.Type, who: { readonly id: string; readonly username: string }) =>
    Effect.map(Clock.currentTimeMillis, (now): TokenGrant => {
      const expiresAt = DateTime.unsafeMake(now + reply.expires_in * 1000)
      const stored: StoredToken = { access_token: reply.access_token, expires_at: DateTime.formatIso(expiresAt), user_id: who.id, username: who.username }
      return { credentials: stored, expiresAt }
    })

  const exchange: OAuthProvider["exchange"] = ({ code, redirectUri }) =>
    Effect.gen(function*() {
      const short = yield* sendGraphJson(
        network,
        codeClient.read,
        HttpClientRequest.post("/oauth/access_token").pipe(HttpClientRequest.bodyUrlParams({
          client_id: clientId,
          client_secret: clientSecret(),
          grant_type: "authorization_code",
          redirect_uri: redirectUri,
          // Meta appends "#_" to the code on its redirect; a browser drops it, a copied URL may not.
          code: code.replace(/#_$/, "")
        })),
        ShortToken
      ).pipe(asRead, Effect.mapError(tokenFailed("authorization code")))
      const shortToken = "data" in short ? short.data[0].access_token : short.access_token
      const long = yield* sendGraphJson(
        network,
        api.read,
        HttpClientRequest.get(`/access_token?${new URLSearchParams({ grant_type: grants.exchange, client_secret: clientSecret(), access_token: shortToken })}`),
        LongToken
      ).pipe(asRead, Effect.mapError(tokenFailed("long-lived token exchange")))
      return yield* grantOf(long, yield* me(long.access_token))
    }).pipe(Effect.provide(context))

  const refresh: OAuthProvider["refresh"] = (credentials) =>
    Effect.gen(function*() {
      const stored = yield* tokenOf(credentials)
      const reply = yield* sendGraphJson(
        network,
        api.read,
        HttpClientRequest.get(`/refresh_access_token?${new URLSearchParams({ grant_type: grants.refresh, access_token: stored.access_token })}`),
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
    platform: settings.platform,
    start: consentUrl(({ redirectUri, state }) =>
      `${endpoints.authBaseUrl}/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: settings.scopes.join(","),
        response_type: "code",
        state
      })}`),
    exchange,
    refresh,
    identify
  }
}
