/**
 * LinkedIn's 3-legged OAuth (authorization code) for Herald's connection flow. LinkedIn's web
 * flow authenticates the app with its client secret and takes no PKCE parameters (PKCE is its
 * native-app flow only), so the challenge the flow hands over is not sent and the verifier is not
 * needed; the state still binds the callback to its start. Refresh tokens are given to approved
 * Marketing Developer Platform apps only: without one, the account reconnects when its 60-day
 * token runs out.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { type Credentials, type DeliveryError, PlatformCallFailed } from "@herald/core"
import { Clock, DateTime, type Context, Effect, Either, Option, Redacted, Schema } from "effect"
import type { OAuthProvider, PlatformEndpoints, PlatformIdentity, TokenGrant } from "./KitShim.js"
import { readFailed } from "./LinkedinErrors.js"
import { type LinkedinFailure, rest, sendJson, under } from "./Rest.js"
import { isOrganization, StoredToken } from "./Token.js"

/** What Herald asks a member for: who they are (OpenID) and to post as them. */
export const memberScopes = ["openid", "profile", "w_member_social"] as const
/** Added for organisation authors (Community Management API, which LinkedIn approves per app). */
export const organizationScopes = ["w_organization_social", "r_organization_social"] as const

export const defaultAuthBaseUrl = "https://www.linkedin.com"

const TokenReply = Schema.Struct({
  access_token: Schema.String,
  expires_in: Schema.Number,
  scope: Schema.optional(Schema.String),
  refresh_token: Schema.optional(Schema.String),
  refresh_token_expires_in: Schema.optional(Schema.Number)
})

export const UserInfo = Schema.Struct({ sub: Schema.String, name: Schema.optional(Schema.String) })
const Organization = Schema.Struct({ localizedName: Schema.optional(Schema.String), vanityName: Schema.optional(Schema.String) })

const oauthError = (category: DeliveryError["category"], code: string, message: string) =>
  new PlatformCallFailed({ error: { category, code, message }, retryAfterMs: null })

/** OAuth errors that name the app's configuration (client, redirect, products), which no reconnect mends. */
const appErrors = new Set(["invalid_client", "invalid_client_id", "unauthorized_client", "invalid_redirect_uri", "invalid_scope", "unauthorized_scope_error"])

/**
 * A refusal of the token endpoint: a refused client, scope or redirect is the app's
 * configuration; any other refused grant (a code used or expired, a refresh token revoked)
 * means connecting the account again.
 */
const tokenFailed = (failure: LinkedinFailure): PlatformCallFailed => {
  if (failure._tag === "LinkedinNoAnswer" || failure.status === 429 || failure.status >= 500) return readFailed(failure)
  if (appErrors.has(failure.code)) {
    return oauthError("permission_missing", failure.code, `LinkedIn refused Herald's app: ${failure.message} (check HERALD_LINKEDIN_CLIENT_ID, the secret, the redirect URL and the app's products)`)
  }
  return oauthError("auth_expired", failure.code, `LinkedIn refused the grant: ${failure.message}; connect the account again`)
}

export const linkedinOAuth = (
  config: PlatformEndpoints,
  scopes: ReadonlyArray<string>,
  context: Context.Context<HttpClient.HttpClient>
): OAuthProvider => {
  const auth = (path: string) => under(config.authBaseUrl ?? defaultAuthBaseUrl, path)
  const api = (path: string) => under(config.apiBaseUrl, path)
  const client = () => ({
    client_id: config.clientId ?? "",
    client_secret: config.clientSecret === undefined ? "" : Redacted.value(config.clientSecret)
  })

  const grant = (form: Record<string, string>, keep: (reply: typeof TokenReply.Type) => Effect.Effect<Record<string, string>, PlatformCallFailed, HttpClient.HttpClient>) =>
    Effect.gen(function*() {
      const reply = yield* sendJson(
        HttpClientRequest.post(auth("/oauth/v2/accessToken")).pipe(HttpClientRequest.bodyUrlParams({ ...form, ...client() })),
        "read",
        TokenReply
      ).pipe(Effect.mapError(tokenFailed))
      const now = yield* Clock.currentTimeMillis
      const expiresAt = DateTime.unsafeMake(now + reply.expires_in * 1000)
      const credentials: Credentials = {
        ...(yield* keep(reply)),
        access_token: reply.access_token,
        expires_at: DateTime.formatIso(expiresAt),
        ...(reply.scope === undefined ? {} : { scope: reply.scope.split(/[ ,]+/).join(" ") }),
        ...(reply.refresh_token === undefined ? {} : { refresh_token: reply.refresh_token })
      }
      return { credentials, expiresAt } satisfies TokenGrant
    }).pipe(Effect.provide(context))

  const userInfo = (accessToken: string) =>
    sendJson(HttpClientRequest.get(api("/v2/userinfo")).pipe(HttpClientRequest.bearerToken(accessToken)), "read", UserInfo).pipe(
      Effect.mapError(readFailed)
    )

  const exchange: OAuthProvider["exchange"] = ({ code, redirectUri }) =>
    grant({ grant_type: "authorization_code", code, redirect_uri: redirectUri }, (reply) =>
      Effect.map(userInfo(reply.access_token), (member) => {
        const urn = `urn:li:person:${member.sub}`
        return { member_urn: urn, author_urn: urn }
      }))

  const refresh: OAuthProvider["refresh"] = (credentials) =>
    Either.match(Schema.decodeUnknownEither(StoredToken)(credentials), {
      onLeft: () => Effect.fail(oauthError("auth_expired", "credentials_unusable", "the stored credentials are not a LinkedIn token; reconnect the account")),
      onRight: (stored) =>
        stored.refresh_token === undefined
          ? Effect.fail(oauthError(
            "auth_expired",
            "no_refresh_token",
            "LinkedIn gives refresh tokens to approved partner apps only and this connection has none; reconnect the account"
          ))
          : grant(
            { grant_type: "refresh_token", refresh_token: stored.refresh_token },
            // LinkedIn's refresh token is good for 365 days from the first grant and is not
            // replaced; the one Herald holds stays when the reply does not carry another.
            () => Effect.succeed({ member_urn: stored.member_urn, author_urn: stored.author_urn, refresh_token: stored.refresh_token! })
          )
    })

  const identify: OAuthProvider["identify"] = (credentials) =>
    Effect.gen(function*() {
      const stored = yield* Effect.mapError(
        Schema.decodeUnknown(StoredToken)(credentials),
        () => oauthError("auth_expired", "credentials_unusable", "the credentials are not a LinkedIn token with an author")
      )
      const member = yield* userInfo(stored.access_token)
      if (!isOrganization(stored.author_urn)) {
        return { platformAccountId: `urn:li:person:${member.sub}`, username: member.name ?? member.sub } satisfies PlatformIdentity
      }
      const id = stored.author_urn.slice("urn:li:organization:".length)
      const organization = yield* sendJson(rest("GET", api(`/rest/organizations/${encodeURIComponent(id)}`), stored.access_token), "read", Organization).pipe(
        Effect.mapError(readFailed)
      )
      return {
        platformAccountId: stored.author_urn,
        username: Option.getOrElse(Option.fromNullable(organization.vanityName ?? organization.localizedName), () => id)
      } satisfies PlatformIdentity
    }).pipe(Effect.provide(context))

  return {
    platform: "linkedin",
    authorizeUrl: ({ redirectUri, state }) =>
      `${auth("/oauth/v2/authorization")}?${new URLSearchParams({
        response_type: "code",
        client_id: config.clientId ?? "",
        redirect_uri: redirectUri,
        state,
        scope: scopes.join(" ")
      })}`,
    exchange,
    refresh,
    identify
  }
}

/** Credentials that post as an organisation the member administers, instead of as the member. */
export const asOrganization = (credentials: Credentials, organizationId: string): Credentials => ({
  ...credentials,
  author_urn: `urn:li:organization:${organizationId}`
})
