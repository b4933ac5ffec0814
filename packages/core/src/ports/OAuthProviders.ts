import { Context, type DateTime, type Effect, Layer, type Redacted } from "effect"
import type { AccountReport } from "../Account.js"
import type { Platform } from "../Platform.js"
import type { Credentials } from "./AccountAdmin.js"
import type { PlatformCallFailed } from "./RouteAdapters.js"

/** What a token endpoint granted: the credentials to store, and when their access token expires. */
export interface TokenGrant {
  readonly credentials: Credentials
  /** null: the platform did not say (the token lives until refused). */
  readonly expiresAt: DateTime.Utc | null
}

/** Who the credentials belong to on the platform. */
export interface PlatformIdentity {
  /** The platform's stable id for the account (a user id, a DID, a member URN); reconnects match on it. */
  readonly platformAccountId: string
  readonly username: string
  /** What the platform reports of the account (kept with it); absent where it reports nothing. */
  readonly report?: AccountReport
}

/**
 * What a platform's direct route tells the connection flow. A refused exchange or refresh fails
 * with category auth_expired (permission_missing when scopes are missing).
 */
export interface OAuthProvider {
  readonly platform: Platform
  /** The consent URL (authorization code + PKCE S256 where the platform supports it). */
  readonly authorizeUrl: (request: { readonly state: string; readonly codeChallenge: string; readonly redirectUri: string }) => string
  readonly exchange: (
    request: { readonly code: string; readonly codeVerifier: string; readonly redirectUri: string }
  ) => Effect.Effect<TokenGrant, PlatformCallFailed>
  readonly refresh: (credentials: Credentials) => Effect.Effect<TokenGrant, PlatformCallFailed>
  readonly identify: (credentials: Credentials) => Effect.Effect<PlatformIdentity, PlatformCallFailed>
  /**
   * The other authors the same grant posts as (LinkedIn's organisation pages the member
   * administers): the credentials of each, identified like the granting account and connected as
   * accounts of their own beside it. Absent: the grant posts as its own account only.
   */
  readonly alsoPostsAs?: (credentials: Credentials) => Effect.Effect<ReadonlyArray<Credentials>, PlatformCallFailed>
}

/** For platforms connected with a login instead of a consent page (Bluesky app passwords). */
export interface PasswordLogin {
  readonly platform: Platform
  readonly login: (
    request: { readonly identifier: string; readonly password: Redacted.Redacted<string> }
  ) => Effect.Effect<TokenGrant & PlatformIdentity, PlatformCallFailed>
  readonly refresh: (credentials: Credentials) => Effect.Effect<TokenGrant, PlatformCallFailed>
}

/** How this build connects a platform's accounts on the direct route. */
export type ConnectionMethod =
  | { readonly _tag: "OAuth"; readonly provider: OAuthProvider }
  | { readonly _tag: "Password"; readonly login: PasswordLogin }
  /** The platform has a direct publisher but its OAuth client is not configured: the variables to set. */
  | { readonly _tag: "Unconfigured"; readonly variables: ReadonlyArray<string> }
  /** No direct publisher for the platform in this build. */
  | { readonly _tag: "Unavailable" }

export interface ConnectionMethods {
  readonly oauth: ReadonlyArray<OAuthProvider>
  readonly logins: ReadonlyArray<PasswordLogin>
  readonly unconfigured: ReadonlyArray<{ readonly platform: Platform; readonly variables: ReadonlyArray<string> }>
}

/**
 * Herald's callback for a platform's consent page, under its public base URL: the redirect_uri to
 * register with the platform's OAuth app. Served outside /api/v1, without an API key.
 */
export const oauthCallbackPrefix = "/oauth/callback"

export const oauthCallbackPath = (platform: Platform) => `${oauthCallbackPrefix}/${platform}`

/**
 * How each platform's accounts are connected on the direct route: a consent page (OAuthProvider)
 * or a login (PasswordLogin).
 */
export class OAuthProviders extends Context.Tag("@herald/core/OAuthProviders")<OAuthProviders, {
  readonly method: (platform: Platform) => ConnectionMethod
}>() {
  static readonly make = (methods: ConnectionMethods) =>
    OAuthProviders.of({
      method: (platform): ConnectionMethod => {
        const provider = methods.oauth.find((entry) => entry.platform === platform)
        if (provider !== undefined) return { _tag: "OAuth", provider }
        const login = methods.logins.find((entry) => entry.platform === platform)
        if (login !== undefined) return { _tag: "Password", login }
        const unconfigured = methods.unconfigured.find((entry) => entry.platform === platform)
        return unconfigured === undefined ? { _tag: "Unavailable" } : { _tag: "Unconfigured", variables: unconfigured.variables }
      }
    })

  static readonly layer = (methods: ConnectionMethods): Layer.Layer<OAuthProviders> =>
    Layer.succeed(OAuthProviders, OAuthProviders.make(methods))

  /** No platform connects directly (tests, builds without direct publishers). */
  static readonly none: Layer.Layer<OAuthProviders> = OAuthProviders.layer({ oauth: [], logins: [], unconfigured: [] })
}
