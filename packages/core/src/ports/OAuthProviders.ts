import { type Array, Context, type DateTime, type Effect, Layer, type Redacted } from "effect"
import type { AccountReport, ConnectionRoute } from "../Account.js"
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

/** What starting a consent page knows: the one-time state, the PKCE challenge and where to come back. */
export interface AuthorizationRequest {
  readonly state: string
  readonly codeChallenge: string
  readonly redirectUri: string
  /** Herald's public base URL (the redirect URI's base), for platforms whose client id is a URL under it (atproto). */
  readonly publicUrl: string
  /** The account the person means to connect (a Bluesky handle or DID), when they named one; null otherwise. */
  readonly loginHint: string | null
}

/** A consent page ready to open. */
export interface StartedAuthorization {
  readonly authorizeUrl: string
  /**
   * What the callback's exchange needs beside the PKCE verifier (atproto: the DPoP key the
   * pushed request was signed with, and the authorization server), kept sealed with the state
   * until the callback; null when nothing.
   */
  readonly carried: Redacted.Redacted<string> | null
}

/** The consent page's answer, with what its start carried. */
export interface AuthorizationAnswer {
  readonly code: string
  readonly codeVerifier: string
  readonly redirectUri: string
  readonly carried: Redacted.Redacted<string> | null
  /** The callback's `iss` parameter (RFC 9207), when the platform sends one. */
  readonly issuer: string | null
}

/** One account a consent connects: the grant it posts with, and who it is on the platform. */
export interface GrantedAccount {
  readonly grant: TokenGrant
  readonly identity: PlatformIdentity
}

/**
 * What a platform's direct route tells the connection flow. A refused exchange or refresh fails
 * with category auth_expired (permission_missing when scopes are missing).
 */
export interface OAuthProvider {
  readonly platform: Platform
  /** The route its accounts are connected on; absent: direct. */
  readonly route?: ConnectionRoute
  /**
   * Prepares the consent page (authorization code + PKCE S256 where the platform supports it):
   * a URL built from the request for most platforms; atproto first finds the account's
   * authorization server and pushes the request to it (PAR).
   */
  readonly start: (request: AuthorizationRequest) => Effect.Effect<StartedAuthorization, PlatformCallFailed>
  readonly exchange: (answer: AuthorizationAnswer) => Effect.Effect<TokenGrant, PlatformCallFailed>
  readonly refresh: (credentials: Credentials) => Effect.Effect<TokenGrant, PlatformCallFailed>
  readonly identify: (credentials: Credentials) => Effect.Effect<PlatformIdentity, PlatformCallFailed>
  /**
   * The accounts one consent connects, when they are not the granting user alone: LinkedIn's
   * member and the pages they administer, Facebook's Pages (a Facebook user cannot be posted as),
   * each with the credentials it posts with and their own expiry. Absent: the granting user
   * (`identify` on the exchanged grant) is the one account.
   */
  readonly accountsOf?: (grant: TokenGrant) => Effect.Effect<Array.NonEmptyReadonlyArray<GrantedAccount>, PlatformCallFailed>
}

/** For platforms connected with a login instead of a consent page (Bluesky app passwords). */
export interface PasswordLogin {
  readonly platform: Platform
  readonly login: (
    request: { readonly identifier: string; readonly password: Redacted.Redacted<string> }
  ) => Effect.Effect<TokenGrant & PlatformIdentity, PlatformCallFailed>
  readonly refresh: (credentials: Credentials) => Effect.Effect<TokenGrant, PlatformCallFailed>
}

/** The keys an aggregator's account is reached with: its API key, and a user profile's key where the account is not the primary profile's. */
export interface AggregatorKeys {
  readonly apiKey: Redacted.Redacted<string>
  readonly profileKey: Redacted.Redacted<string> | null
}

/**
 * For routes connected with an aggregator's keys instead of a consent page (Ayrshare): the keys
 * are checked with the aggregator, which names the network account its profile links; the
 * credentials to store are the keys themselves (sealed like tokens), which do not expire.
 */
export interface KeyConnection {
  readonly platform: Platform
  readonly route: ConnectionRoute
  readonly connect: (keys: AggregatorKeys) => Effect.Effect<TokenGrant & PlatformIdentity, PlatformCallFailed>
}

/** How this build connects a platform's accounts on a route (Bluesky has both a consent page and a login; the aggregator routes take keys). */
export type ConnectionMethod =
  | { readonly _tag: "OAuth"; readonly provider: OAuthProvider }
  | { readonly _tag: "Password"; readonly login: PasswordLogin }
  | { readonly _tag: "Keys"; readonly connection: KeyConnection }
  /** The platform has a direct publisher but its OAuth client is not configured: the variables to set. */
  | { readonly _tag: "Unconfigured"; readonly variables: ReadonlyArray<string> }
  /** No direct publisher for the platform in this build. */
  | { readonly _tag: "Unavailable" }

export interface ConnectionMethods {
  readonly oauth: ReadonlyArray<OAuthProvider>
  readonly logins: ReadonlyArray<PasswordLogin>
  /** The aggregator routes' key connections; absent: none. */
  readonly keys?: ReadonlyArray<KeyConnection>
  readonly unconfigured: ReadonlyArray<{ readonly platform: Platform; readonly route?: ConnectionRoute; readonly variables: ReadonlyArray<string> }>
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
  /**
   * The ways the platform connects on `route` (direct unless named), the consent page first; one
   * Unconfigured or Unavailable entry when none works.
   */
  readonly methods: (platform: Platform, route?: ConnectionRoute) => ReadonlyArray<ConnectionMethod>
}>() {
  static readonly make = (methods: ConnectionMethods) =>
    OAuthProviders.of({
      methods: (platform, route = "direct"): ReadonlyArray<ConnectionMethod> => {
        const on = (entry: { readonly platform: Platform; readonly route?: ConnectionRoute }) =>
          entry.platform === platform && (entry.route ?? "direct") === route
        const found: Array<ConnectionMethod> = [
          ...methods.oauth.filter(on).map((provider) => ({ _tag: "OAuth", provider }) as const),
          ...(route === "direct" ? methods.logins.filter((entry) => entry.platform === platform) : [])
            .map((login) => ({ _tag: "Password", login }) as const),
          ...(methods.keys ?? []).filter(on).map((connection) => ({ _tag: "Keys", connection }) as const)
        ]
        if (found.length > 0) return found
        const unconfigured = methods.unconfigured.find(on)
        return [unconfigured === undefined ? { _tag: "Unavailable" } : { _tag: "Unconfigured", variables: unconfigured.variables }]
      }
    })

  static readonly layer = (methods: ConnectionMethods): Layer.Layer<OAuthProviders> =>
    Layer.succeed(OAuthProviders, OAuthProviders.make(methods))

  /** No platform connects directly (tests, builds without direct publishers). */
  static readonly none: Layer.Layer<OAuthProviders> = OAuthProviders.layer({ oauth: [], logins: [], unconfigured: [] })
}
