/**
 * Google's OAuth 2.0 for web server apps (developers.google.com/identity/protocols/oauth2/web-server):
 * the consent page on accounts.google.com with PKCE S256, `access_type=offline` and
 * `prompt=consent` (so every connection carries a refresh token, a reconnect included), the code
 * exchanged and refreshed at oauth2.googleapis.com/token with the client's secret in the body. A
 * refresh token Google revoked or let expire answers `invalid_grant`: auth_expired, so the
 * account needs a reconnect. The account is the grant's YouTube channel (channels.list mine=true).
 */
import { HttpClientRequest } from "@effect/platform"
import { type Credentials, PlatformCallFailed } from "@herald/core"
import { type Context, Effect, Schema } from "effect"
import { accessToken, asRead, oauth2Provider, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { sendJson } from "./GoogleApi.js"
import { type QuotaSettings, spend } from "./Quota.js"
import type { Needs } from "./YoutubeToken.js"

/**
 * What Herald asks for: uploads and thumbnails (youtube.upload), reading the channel, its videos'
 * statistics and deleting them (youtube.force-ssl), and the Analytics API's reports
 * (yt-analytics.readonly: shares; optional, the Data API's statistics suffice without it).
 */
export const youtubeScopes = [
  "https://www.googleapis.com/auth/youtube.upload",
  "https://www.googleapis.com/auth/youtube.force-ssl",
  "https://www.googleapis.com/auth/yt-analytics.readonly"
] as const

/** The scopes publishing and takedowns need; analytics is a bonus. */
export const neededScopes = youtubeScopes.slice(0, 2)

export const analyticsScope = "https://www.googleapis.com/auth/yt-analytics.readonly"

export const Channels = Schema.Struct({
  items: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      id: Schema.String,
      snippet: Schema.optional(Schema.Struct({ title: Schema.optional(Schema.String), customUrl: Schema.optional(Schema.String) }))
    })),
    { default: () => [] }
  )
})

/** The grant's channel: Google accounts without one cannot upload (youtubeSignupRequired). */
export const myChannel = (client: PlatformClient, quota: QuotaSettings, token: string) =>
  Effect.gen(function*() {
    yield* spend(quota, 1, "a channel read")
    const reply = yield* sendJson(
      client.read,
      HttpClientRequest.get("/youtube/v3/channels?part=id,snippet&mine=true").pipe(HttpClientRequest.bearerToken(token)),
      "read",
      Channels
    )
    const channel = reply.items[0]
    if (channel === undefined) {
      return yield* new PlatformCallFailed({
        error: { category: "permission_missing", code: "youtubeSignupRequired", message: "the Google account that consented has no YouTube channel; create one, then connect again" },
        retryAfterMs: null
      })
    }
    return channel
  })

export const youtubeOAuth = (
  endpoints: PlatformEndpoints,
  settings: { readonly tokenUrl: string; readonly quota: QuotaSettings },
  api: PlatformClient,
  context: Context.Context<Needs>
) =>
  oauth2Provider({
    endpoints,
    authorizePath: "/o/oauth2/v2/auth",
    tokenUrl: settings.tokenUrl,
    scopes: youtubeScopes,
    clientAuthentication: "body",
    authorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
    identify: (credentials: Credentials) =>
      myChannel(api, settings.quota, accessToken(credentials)).pipe(
        Effect.map((channel) => ({
          platformAccountId: channel.id,
          username: (channel.snippet?.customUrl ?? channel.snippet?.title ?? channel.id).replace(/^@/, "")
        })),
        asRead,
        Effect.provide(context)
      )
  })
