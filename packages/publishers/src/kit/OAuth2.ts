import { type HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { type AuthorizationRequest, type Credentials, type DeliveryError, type OAuthProvider, PlatformCallFailed, type PlatformIdentity } from "@herald/core"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import type { PlatformEndpoints } from "./Config.js"
import { asRead, categoryOfStatus, refusal } from "./Failures.js"
import { platformClient } from "./PlatformHttp.js"

/** What an RFC 6749 token endpoint answers. */
const TokenReply = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.Number),
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})

/**
 * A token endpoint's refusal (RFC 6749 §5.2: `{ error, error_description }`): a refused grant or
 * client is auth_expired (only a new consent helps), a missing scope permission_missing, the
 * rest by status.
 */
export const tokenEndpointError = (reply: { readonly status: number; readonly body: unknown }): DeliveryError => {
  const body = typeof reply.body === "object" && reply.body !== null ? reply.body as Record<string, unknown> : {}
  const code = typeof body.error === "string" ? body.error : `http_${reply.status}`
  // Some token endpoints answer in their API's envelope instead (Pinterest: { code, message }).
  const described = typeof body.error_description === "string" ? body.error_description : typeof body.message === "string" ? body.message : undefined
  const message = described ?? (typeof reply.body === "string" && reply.body !== "" ? reply.body.slice(0, 500) : `the token endpoint answered ${reply.status}`)
  const category = code === "invalid_scope" || code === "insufficient_scope"
    ? "permission_missing"
    : reply.status === 400 || reply.status === 401
    ? "auth_expired"
    : categoryOfStatus(reply.status)
  return { category, code, message }
}

/** The start of a platform whose consent page is a URL built from the request alone: nothing to call, nothing carried. */
export const consentUrl = (build: (request: AuthorizationRequest) => string): OAuthProvider["start"] => (request) =>
  Effect.succeed({ authorizeUrl: build(request), carried: null })

export interface OAuth2Settings {
  readonly endpoints: PlatformEndpoints
  /** The consent page, relative to the auth base URL (X: /i/oauth2/authorize). */
  readonly authorizePath: string
  /** The token endpoint, relative to the auth base URL or absolute (X's is on its API host). */
  readonly tokenUrl: string
  readonly scopes: ReadonlyArray<string>
  /** How the client authenticates at the token endpoint: HTTP Basic (confidential) or client_id in the body. */
  readonly clientAuthentication: "basic" | "body"
  /** Whether the platform takes PKCE (S256); true unless it refuses it. */
  readonly pkce?: boolean
  /** Scope separator in the consent URL (a space by RFC 6749; some platforms take a comma). */
  readonly scopeSeparator?: string
  /** The platform's own consent URL parameters (Google's access_type=offline and prompt=consent). */
  readonly authorizeParams?: Readonly<Record<string, string>>
  readonly identify: (credentials: Credentials) => Effect.Effect<PlatformIdentity, PlatformCallFailed>
}

/**
 * An OAuthProvider for a platform that follows RFC 6749's authorization code grant (with RFC 7636
 * PKCE S256): the consent URL, the code exchange and refresh as form posts to the token endpoint,
 * the grant stored as `access_token`, `refresh_token`, `scope` (space separated) and `expires_at`
 * (from `expires_in`). A refresh that returns no new refresh token keeps the old one.
 */
export const oauth2Provider = (settings: OAuth2Settings): Effect.Effect<OAuthProvider, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const { endpoints } = settings
    const auth = yield* platformClient(endpoints.authBaseUrl)
    const clientId = Option.getOrElse(endpoints.clientId, () => "")

    const tokenCall = (fields: Record<string, string>) =>
      asRead(Effect.gen(function*() {
        const basic = settings.clientAuthentication === "basic"
        const secret = Option.map(endpoints.clientSecret, Redacted.value)
        const form = basic ? fields : { ...fields, client_id: clientId, ...Option.match(secret, { onNone: () => ({}), onSome: (client_secret) => ({ client_secret }) }) }
        let request = HttpClientRequest.post(settings.tokenUrl).pipe(
          HttpClientRequest.bodyUrlParams(form),
          HttpClientRequest.acceptJson
        )
        if (basic) request = HttpClientRequest.basicAuth(request, clientId, Option.getOrElse(secret, () => ""))
        const response = yield* auth.read.execute(request)
        if (response.status !== 200) return yield* Effect.flip(refusal(response, tokenEndpointError))
        const reply = yield* HttpClientResponse.schemaBodyJson(TokenReply)(response)
        const now = yield* DateTime.now
        return {
          credentials: {
            access_token: reply.access_token,
            ...(reply.refresh_token === undefined ? {} : { refresh_token: reply.refresh_token }),
            // Space separated, as AccountTokens keeps scopes (Pinterest answers them comma separated).
            ...(reply.scope === undefined ? {} : { scope: reply.scope.split(/[ ,]+/).filter((scope) => scope !== "").join(" ") })
          },
          expiresAt: reply.expires_in === undefined ? null : DateTime.addDuration(now, `${Math.round(reply.expires_in)} seconds`)
        }
      }))

    return {
      platform: endpoints.platform,
      start: consentUrl(({ codeChallenge, redirectUri, state }) => {
        const url = new URL(`${endpoints.authBaseUrl}/${settings.authorizePath.replace(/^\/+/, "")}`)
        url.searchParams.set("response_type", "code")
        url.searchParams.set("client_id", clientId)
        url.searchParams.set("redirect_uri", redirectUri)
        url.searchParams.set("state", state)
        url.searchParams.set("scope", settings.scopes.join(settings.scopeSeparator ?? " "))
        for (const [name, value] of Object.entries(settings.authorizeParams ?? {})) url.searchParams.set(name, value)
        if (settings.pkce ?? true) {
          url.searchParams.set("code_challenge", codeChallenge)
          url.searchParams.set("code_challenge_method", "S256")
        }
        return url.toString()
      }),
      exchange: ({ code, codeVerifier, redirectUri }) =>
        tokenCall({
          grant_type: "authorization_code",
          code,
          redirect_uri: redirectUri,
          ...(settings.pkce ?? true ? { code_verifier: codeVerifier } : {})
        }),
      refresh: (credentials) =>
        typeof credentials.refresh_token === "string"
          ? tokenCall({ grant_type: "refresh_token", refresh_token: credentials.refresh_token })
          : Effect.fail(noRefreshToken()),
      identify: settings.identify
    } satisfies OAuthProvider
  })

const noRefreshToken = () =>
  new PlatformCallFailed({
    error: { category: "auth_expired", code: "no_refresh_token", message: "the grant has no refresh token: reconnect the account" },
    retryAfterMs: null
  })
