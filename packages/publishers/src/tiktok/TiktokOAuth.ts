/**
 * TikTok's Login Kit (OAuth 2.0, v2): the consent page www.tiktok.com/v2/auth/authorize/ with the
 * app's client_key and comma-separated scopes; the code exchanged, and the grant refreshed, at
 * open.tiktokapis.com/v2/oauth/token/ (a form with client_key and client_secret). TikTok asks
 * PKCE of mobile and desktop apps only; Herald is a web app holding its client secret, so it
 * sends none. The creator is identified by GET /v2/user/info/ (open_id) and creator_info
 * (username, and what the account may post, kept as its report).
 */
import { HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { type OAuthProvider, PlatformCallFailed, type PlatformIdentity, type TokenGrant } from "@herald/core"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { asRead, consentUrl, type PlatformClient, type PlatformEndpoints, refusal, tokenEndpointError } from "../kit/index.js"
import { api, call } from "./TiktokApi.js"
import { type AppStanding, readReport } from "./TiktokCreator.js"
import { network } from "./TiktokErrors.js"
import { type StoredToken, tokenOf } from "./TiktokToken.js"

/**
 * What Herald asks for: identity (user.info.basic), direct posting (video.publish: creator_info,
 * video and photo init, status), and the creator's videos (video.list: metrics and finding a post
 * whose answer was lost). docs/networks/tiktok.md.
 */
export const tiktokScopes = ["user.info.basic", "video.publish", "video.list"] as const

const TokenReply = Schema.Struct({
  open_id: Schema.String,
  scope: Schema.optional(Schema.String),
  access_token: Schema.String,
  expires_in: Schema.Number,
  refresh_token: Schema.String,
  refresh_expires_in: Schema.optional(Schema.Number),
  token_type: Schema.optional(Schema.String)
})

export const UserInfo = Schema.Struct({
  user: Schema.Struct({ open_id: Schema.String, display_name: Schema.optional(Schema.String) })
})

/** A token call's failure with no secret in it: a refused grant or client needs a new consent. */
const tokenFailed = (what: string) => (failed: PlatformCallFailed): PlatformCallFailed => {
  const { category, code } = failed.error
  if (category === "transient" || category === "rate_limited" || code === "destination_refused") {
    return new PlatformCallFailed({ error: { category, code, message: `${network}'s ${what} was not reached or did not answer (${code})` }, retryAfterMs: failed.retryAfterMs })
  }
  return new PlatformCallFailed({
    error: { category: category === "permission_missing" ? category : "auth_expired", code, message: `${network} refused the ${what}: ${failed.error.message}; connect the account again` },
    retryAfterMs: null
  })
}

export const tiktokOAuth = (
  endpoints: PlatformEndpoints,
  client: PlatformClient,
  standing: AppStanding
): OAuthProvider => {
  const clientKey = Option.getOrElse(endpoints.clientId, () => "")
  const clientSecret = () => Option.match(endpoints.clientSecret, { onNone: () => "", onSome: Redacted.value })

  const tokenCall = (fields: Record<string, string>, what: string) =>
    Effect.gen(function*() {
      const response = yield* client.read.execute(
        HttpClientRequest.post("/v2/oauth/token/").pipe(
          HttpClientRequest.bodyUrlParams({ client_key: clientKey, client_secret: clientSecret(), ...fields }),
          HttpClientRequest.acceptJson
        )
      )
      // A refusal is OAuth's { error, error_description } with TikTok's log_id.
      if (response.status !== 200) return yield* Effect.flip(refusal(response, tokenEndpointError))
      return yield* HttpClientResponse.schemaBodyJson(TokenReply)(response)
    }).pipe(Effect.scoped, asRead, Effect.mapError(tokenFailed(what)))

  const grantOf = (reply: typeof TokenReply.Type, username: string): Effect.Effect<TokenGrant> =>
    Effect.map(DateTime.now, (now) => {
      const stored: StoredToken = {
        access_token: reply.access_token,
        refresh_token: reply.refresh_token,
        ...(reply.refresh_expires_in === undefined
          ? {}
          : { refresh_expires_at: DateTime.formatIso(DateTime.addDuration(now, `${Math.round(reply.refresh_expires_in)} seconds`)) }),
        ...(reply.scope === undefined ? {} : { scope: reply.scope }),
        open_id: reply.open_id,
        username
      }
      return { credentials: stored, expiresAt: DateTime.addDuration(now, `${Math.round(reply.expires_in)} seconds`) }
    })

  const exchange: OAuthProvider["exchange"] = ({ code, redirectUri }) =>
    Effect.gen(function*() {
      const reply = yield* tokenCall({ code, grant_type: "authorization_code", redirect_uri: redirectUri }, "authorization code")
      const { info } = yield* asRead(readReport(client.read, reply.access_token, standing))
      return yield* grantOf(reply, info.creator_username)
    })

  const refresh: OAuthProvider["refresh"] = (credentials) =>
    Effect.gen(function*() {
      const stored = yield* tokenOf(credentials)
      const reply = yield* tokenCall({ grant_type: "refresh_token", refresh_token: stored.refresh_token }, "token refresh")
      return yield* grantOf(reply, stored.username)
    })

  const identify: OAuthProvider["identify"] = (credentials) =>
    Effect.gen(function*() {
      const stored = yield* tokenOf(credentials)
      const who = yield* asRead(call(client.read, api("GET", "/v2/user/info/?fields=open_id,display_name", stored.access_token), UserInfo))
      const { info, report } = yield* asRead(readReport(client.read, stored.access_token, standing))
      return { platformAccountId: who.user.open_id, username: info.creator_username, report } satisfies PlatformIdentity
    })

  return {
    platform: "tiktok",
    start: consentUrl(({ redirectUri, state }) =>
      `${endpoints.authBaseUrl}/v2/auth/authorize/?${new URLSearchParams({
        client_key: clientKey,
        scope: tiktokScopes.join(","),
        response_type: "code",
        redirect_uri: redirectUri,
        state
      })}`),
    exchange,
    refresh,
    identify
  }
}
