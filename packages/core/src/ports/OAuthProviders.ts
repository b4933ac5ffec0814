import { Context, type DateTime, type Effect, Layer, type Redacted } from "effect"
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
}

/** For platforms connected with a login instead of a consent page (Bluesky app passwords). */
export interface PasswordLogin {
  readonly platform: Platform
  readonly login: (
    request: { readonly identifier: string; readonly password: Redacted.Redacted<string> }
  ) => Effect.Effect<TokenGrant & PlatformIdentity, PlatformCallFailed>
  readonly refresh: (credentials: Credentials) => Effect.Effect<TokenGrant, PlatformCallFailed>
}

/**
 * How each platform's accounts are connected on the direct route: a consent page (OAuthProvider)
 * or a login (PasswordLogin). A platform with neither cannot be connected directly in this build.
 */
export class OAuthProviders extends Context.Tag("@herald/core/OAuthProviders")<OAuthProviders, {
  readonly oauth: (platform: Platform) => OAuthProvider | undefined
  readonly passwordLogin: (platform: Platform) => PasswordLogin | undefined
}>() {
  static readonly layer = (
    entries: { readonly oauth: ReadonlyArray<OAuthProvider>; readonly logins: ReadonlyArray<PasswordLogin> }
  ): Layer.Layer<OAuthProviders> =>
    Layer.succeed(
      OAuthProviders,
      OAuthProviders.of({
        oauth: (platform) => entries.oauth.find((provider) => provider.platform === platform),
        passwordLogin: (platform) => entries.logins.find((login) => login.platform === platform)
      })
    )
}
