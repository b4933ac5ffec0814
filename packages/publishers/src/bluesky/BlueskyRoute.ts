/** Bluesky's direct route: its adapters and the app-password login, over one PDS base URL. */
import type { RouteAdapters } from "@herald/core"
import { HttpClient } from "@effect/platform"
import { Context, Effect } from "effect"
import { blueskyLogin } from "./BlueskyLogin.js"
import { blueskyMetrics } from "./BlueskyMetrics.js"
import { blueskyProbe } from "./BlueskyProbe.js"
import { blueskyPublisher } from "./BlueskyPublisher.js"
import type { PasswordLogin, PlatformEndpoints } from "./KitShim.js"
import type { Needs } from "./Session.js"

export const blueskyRoute = (
  config: PlatformEndpoints
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly login: PasswordLogin }, never, Needs> =>
  Effect.map(Effect.context<Needs>(), (context) => ({
    adapters: {
      platform: "bluesky",
      route: "direct",
      publisher: blueskyPublisher(config.apiBaseUrl, context),
      metrics: blueskyMetrics(config.apiBaseUrl, context),
      probe: blueskyProbe(config.apiBaseUrl, context)
    },
    login: blueskyLogin(config.apiBaseUrl, Context.get(context, HttpClient.HttpClient))
  }))
