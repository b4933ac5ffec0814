/** Threads' direct route: its adapters and its OAuth provider, over graph.threads.net and threads.net. */
import type { OAuthProvider, RouteAdapters } from "@herald/core"
import { Effect } from "effect"
import { type DirectRoute, platformClient, type PlatformEndpoints } from "../kit/index.js"
import { threadsMetrics } from "./ThreadsMetrics.js"
import { threadsOAuth } from "./ThreadsOAuth.js"
import { threadsProbe } from "./ThreadsProbe.js"
import { threadsPublisher } from "./ThreadsPublisher.js"
import type { Needs } from "./ThreadsToken.js"

/** Threads' real hosts: the Graph API (tokens too), and the consent page. */
export const threadsHosts = { apiBaseUrl: "https://graph.threads.net", authBaseUrl: "https://threads.net" } as const

export const threadsRoute = (
  endpoints: PlatformEndpoints
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const api = yield* platformClient(endpoints.apiBaseUrl)
    return {
      adapters: {
        platform: "threads",
        route: "direct",
        publisher: threadsPublisher(api, context),
        metrics: threadsMetrics(api, context),
        probe: threadsProbe(api, context)
      },
      oauth: threadsOAuth(endpoints, api, context)
    }
  })

/** Threads' entry in the app's direct routes (app/src/DirectRoutes.ts). */
export const threadsDirectRoute: DirectRoute = {
  platform: "threads",
  defaults: threadsHosts,
  build: (endpoints) => threadsRoute(endpoints)
}
