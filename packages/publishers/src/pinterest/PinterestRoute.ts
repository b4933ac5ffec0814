/** Pinterest's direct route: its adapters and its OAuth provider, over api.pinterest.com and www.pinterest.com. */
import type { OAuthProvider, RouteAdapters } from "@herald/core"
import { Effect } from "effect"
import { type DirectRoute, platformClient, type PlatformEndpoints } from "../kit/index.js"
import { pinterestMetrics } from "./PinterestMetrics.js"
import { pinterestOAuth } from "./PinterestOAuth.js"
import { pinterestProbe } from "./PinterestProbe.js"
import { pinterestPublisher } from "./PinterestPublisher.js"
import type { Needs } from "./PinterestToken.js"

/** Pinterest's real hosts: the API (token endpoint included), and the consent page. */
export const pinterestHosts = { apiBaseUrl: "https://api.pinterest.com", authBaseUrl: "https://www.pinterest.com" } as const

export const pinterestRoute = (
  endpoints: PlatformEndpoints
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const api = yield* platformClient(endpoints.apiBaseUrl)
    return {
      adapters: {
        platform: "pinterest",
        route: "direct",
        publisher: pinterestPublisher(api, context),
        metrics: pinterestMetrics(api, context),
        probe: pinterestProbe(api, context)
      },
      oauth: yield* pinterestOAuth(endpoints, api, context)
    }
  })

/** Pinterest's entry in the app's direct routes (app/src/DirectRoutes.ts). */
export const pinterestDirectRoute: DirectRoute = {
  platform: "pinterest",
  defaults: pinterestHosts,
  build: (endpoints) => pinterestRoute(endpoints)
}
