/**
 * Instagram through Ayrshare, on the two aggregator routes: `aggregator` (first comments) and
 * `aggregator_login` (also people tags, whose handles it confirms through Ayrshare). Both connect
 * with the Ayrshare account's API key and a user profile's Profile-Key; the API's base URL is
 * HERALD_AYRSHARE_API_URL (Ayrshare's own by default; tests point it at the fake).
 */
import type { KeyConnection, RouteAdapters } from "@herald/core"
import { Config, ConfigError, Effect, Either } from "effect"
import { type DirectRoute, platformClient } from "../kit/index.js"
import type { Needs } from "./AyrshareApi.js"
import { ayrsharePublisher } from "./AyrsharePublisher.js"
import { ayrshareConnection, ayrshareMetrics, ayrshareProbe } from "./AyrshareReads.js"

export const ayrshareApiUrl = "https://api.ayrshare.com/api"

export const ayrshareApiUrlVariable = "HERALD_AYRSHARE_API_URL"

/** HERALD_AYRSHARE_API_URL, an absolute http(s) URL without its trailing slash. */
const apiUrl = Config.string(ayrshareApiUrlVariable).pipe(
  Config.withDefault(ayrshareApiUrl),
  Config.mapOrFail((text) =>
    URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)
      ? Either.right(text.replace(/\/+$/, ""))
      : Either.left(ConfigError.InvalidData([ayrshareApiUrlVariable], `${ayrshareApiUrlVariable} must be an absolute http(s) URL, got ${JSON.stringify(text)}`))
  )
)

export type AggregatorRoute = "aggregator" | "aggregator_login"

/** The route's adapters and its key connection over Ayrshare's API at `baseUrl`. */
export const ayrshareRoute = (
  baseUrl: string,
  route: AggregatorRoute
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly keys: KeyConnection }, never, Needs> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const client = yield* platformClient(baseUrl)
    return {
      adapters: {
        platform: "instagram",
        route,
        publisher: ayrsharePublisher(client, context, { handleLookup: route === "aggregator_login" }),
        metrics: ayrshareMetrics(client, context),
        probe: ayrshareProbe(client, context)
      },
      keys: ayrshareConnection(client, context, route)
    }
  })

const entry = (route: AggregatorRoute): DirectRoute => ({
  platform: "instagram",
  route,
  defaults: { apiBaseUrl: ayrshareApiUrl, authBaseUrl: ayrshareApiUrl },
  build: () => Effect.flatMap(apiUrl, (baseUrl) => ayrshareRoute(baseUrl, route))
})

/** Instagram's aggregator routes as the app lists them (app/src/DirectRoutes.ts). */
export const instagramAggregatorRoute: DirectRoute = entry("aggregator")
export const instagramAggregatorLoginRoute: DirectRoute = entry("aggregator_login")
