import type { HttpClient } from "@effect/platform"
import type {
  AccountTokens,
  ConnectionRoute,
  KeyConnection,
  MediaStorage,
  OAuthProvider,
  PasswordLogin,
  PinterestBoards,
  Platform,
  PlatformQuotas,
  PublishCheckpoints,
  RouteAdapters,
  VideoFrames
} from "@herald/core"
import type { ConfigError, Effect } from "effect"
import type { PlatformEndpoints } from "./Config.js"

/** What a platform's direct route gives the app: its adapters, and how its accounts are connected. */
export interface BuiltRoute {
  readonly adapters: RouteAdapters
  /** A consent page (OAuth 2 authorization code). */
  readonly oauth?: OAuthProvider
  /** A login (Bluesky's app passwords). */
  readonly login?: PasswordLogin
  /** An aggregator's keys (Ayrshare's API key and Profile-Key), for the aggregator routes. */
  readonly keys?: KeyConnection
}

/**
 * One platform's direct route, as app/src/DirectRoutes.ts lists it: the platform's real hosts
 * (overridden by HERALD_<PLATFORM>_API_URL / _AUTH_URL), and how to build the route from its
 * endpoints over the guarded HttpClient, the account tokens, the stored media, the publish
 * checkpoints (what a container flow or an upload session records before it waits on the
 * platform), the platforms' daily quotas, frames taken from videos (thumbnails) and the
 * Pinterest boards kept per account.
 */
export interface DirectRoute {
  readonly platform: Platform
  /** The connection route it serves; absent: direct. */
  readonly route?: ConnectionRoute
  /**
   * Whose HERALD_<PLATFORM>_* settings it reads, when not its platform's (Instagram's Facebook
   * Login route uses the Facebook app's).
   */
  readonly settingsOf?: Platform
  readonly defaults: { readonly apiBaseUrl: string; readonly authBaseUrl: string }
  /** Its consent page needs no client registered with the platform (atproto: the client id is Herald's metadata URL). */
  readonly oauthUnregistered?: boolean
  /** A route's own settings beyond its endpoints come from the environment too (a bad one fails start-up). */
  readonly build: (
    endpoints: PlatformEndpoints
  ) => Effect.Effect<
    BuiltRoute,
    ConfigError.ConfigError,
    HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints | PlatformQuotas | VideoFrames | PinterestBoards
  >
}
