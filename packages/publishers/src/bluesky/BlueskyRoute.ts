/** Bluesky's direct route: its adapters and the app-password login, over one PDS base URL. */
import type { PasswordLogin, RouteAdapters } from "@herald/core"
import { Effect } from "effect"
import { type DirectRoute, type PlatformEndpoints, platformClient } from "../kit/index.js"
import { blueskyLogin } from "./BlueskyLogin.js"
import { blueskyMetrics } from "./BlueskyMetrics.js"
import { blueskyProbe } from "./BlueskyProbe.js"
import { blueskyPublisher, type Needs } from "./BlueskyPublisher.js"

export const blueskyRoute = (
  config: Pick<PlatformEndpoints, "apiBaseUrl">
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly login: PasswordLogin }, never, Needs> =>
  Effect.gen(function*() {
    const client = yield* platformClient(config.apiBaseUrl)
    const context = yield* Effect.context<Needs>()
    return {
      adapters: {
        platform: "bluesky",
        route: "direct",
        publisher: blueskyPublisher(client, context),
        metrics: blueskyMetrics(client, context),
        probe: blueskyProbe(client, context)
      },
      login: blueskyLogin(client)
    }
  })

/** Bluesky in the app's list of direct routes: the entryway Bluesky hosts accounts behind. */
export const blueskyDirectRoute: DirectRoute = {
  platform: "bluesky",
  defaults: { apiBaseUrl: "https://bsky.social", authBaseUrl: "https://bsky.social" },
  build: blueskyRoute
}
