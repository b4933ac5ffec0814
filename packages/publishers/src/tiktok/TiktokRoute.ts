/**
 * TikTok's direct route: its adapters and its Login Kit provider, over open.tiktokapis.com and
 * www.tiktok.com, with the app's standing and how it sends videos from the environment.
 */
import type { OAuthProvider, RouteAdapters } from "@herald/core"
import { Config, type ConfigError, Effect } from "effect"
import { type DirectRoute, platformClient, type PlatformEndpoints } from "../kit/index.js"
import { tiktokMetrics } from "./TiktokMetrics.js"
import { tiktokOAuth } from "./TiktokOAuth.js"
import { tiktokProbe } from "./TiktokProbe.js"
import { tiktokPublisher, type TiktokSettings } from "./TiktokPublisher.js"
import type { Needs } from "./TiktokToken.js"

/** TikTok's real hosts: the API (tokens too), and the consent page. */
export const tiktokHosts = { apiBaseUrl: "https://open.tiktokapis.com", authBaseUrl: "https://www.tiktok.com" } as const

/**
 * HERALD_TIKTOK_AUDITED (default false: every TikTok app starts unaudited, and posts privately
 * until TikTok audits it) and HERALD_TIKTOK_VIDEO_SOURCE (file_upload, the default, or
 * pull_from_url once the media bucket's domain is verified with TikTok).
 */
export const tiktokSettings: Config.Config<TiktokSettings> = Config.all({
  audited: Config.withDefault(Config.boolean("HERALD_TIKTOK_AUDITED"), false),
  videoTransfer: Config.withDefault(Config.literal("file_upload", "pull_from_url")("HERALD_TIKTOK_VIDEO_SOURCE"), "file_upload" as const)
})

export const tiktokRoute = (
  endpoints: PlatformEndpoints,
  settings: TiktokSettings
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const api = yield* platformClient(endpoints.apiBaseUrl)
    return {
      adapters: {
        platform: "tiktok",
        route: "direct",
        publisher: tiktokPublisher(api, settings, context),
        metrics: tiktokMetrics(api, context),
        probe: tiktokProbe(api, settings, context)
      },
      oauth: tiktokOAuth(endpoints, api, settings)
    }
  })

/** TikTok's entry in the app's direct routes (app/src/DirectRoutes.ts). */
export const tiktokDirectRoute: DirectRoute = {
  platform: "tiktok",
  defaults: tiktokHosts,
  build: (endpoints): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, ConfigError.ConfigError, Needs> =>
    Effect.flatMap(tiktokSettings, (settings) => tiktokRoute(endpoints, settings))
}
