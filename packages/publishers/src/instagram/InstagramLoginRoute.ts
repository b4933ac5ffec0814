/**
 * Instagram's direct route through Instagram Login (developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login):
 * Meta's user login (meta/UserLogin) with the consent page and the code exchange on
 * api.instagram.com, ig_exchange_token and ig_refresh_token on graph.instagram.com, and the
 * adapters over graph.instagram.com. No deletes and no branded content through this login.
 */
import type { OAuthProvider, RouteAdapters } from "@herald/core"
import { Effect, Schema } from "effect"
import { type DirectRoute, platformClient, type PlatformEndpoints } from "../kit/index.js"
import { userLogin } from "../meta/UserLogin.js"
import { graphOf, type InstagramLogin, type Needs, network, sendJson } from "./InstagramApi.js"
import { instagramMetrics } from "./InstagramMetrics.js"
import { instagramProbe } from "./InstagramProbe.js"
import { instagramPublisher } from "./InstagramPublisher.js"

/**
 * What Herald asks for: identity, publishing and insights (metrics). Each needs Meta's app review
 * for accounts other than the app's testers (docs/networks/instagram.md).
 */
export const instagramLoginScopes = [
  "instagram_business_basic",
  "instagram_business_content_publish",
  "instagram_business_manage_insights"
] as const

export const instagramLogin: InstagramLogin = {
  route: "direct",
  name: "Instagram Login",
  host: "instagram",
  deletes: false,
  brandedContent: false,
  publishScopes: ["instagram_business_basic", "instagram_business_content_publish"]
}

/** Instagram Login's real hosts: the Graph API, and the consent page with the code exchange. */
export const instagramHosts = { apiBaseUrl: "https://graph.instagram.com", authBaseUrl: "https://api.instagram.com" } as const

/** /me through Instagram Login: user_id is the professional account's id, the one publishing takes. */
const Me = Schema.Struct({ id: Schema.String, user_id: Schema.optional(Schema.Union(Schema.String, Schema.Number)), username: Schema.String })

export const instagramLoginRoute = (
  endpoints: PlatformEndpoints
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const api = yield* platformClient(endpoints.apiBaseUrl)
    const auth = yield* platformClient(endpoints.authBaseUrl)
    const graph = graphOf(instagramLogin)
    return {
      adapters: {
        platform: "instagram",
        route: instagramLogin.route,
        publisher: instagramPublisher(instagramLogin, api, context),
        metrics: instagramMetrics(instagramLogin, api, context),
        probe: instagramProbe(instagramLogin, api, context)
      },
      oauth: userLogin({
        platform: "instagram",
        network,
        scopes: instagramLoginScopes,
        endpoints,
        codeClient: auth,
        api,
        grants: { exchange: "ig_exchange_token", refresh: "ig_refresh_token" },
        me: (accessToken) =>
          Effect.map(
            sendJson(api.read, graph("GET", "me?fields=user_id,username", accessToken), Me),
            (me) => ({ id: me.user_id === undefined ? me.id : String(me.user_id), username: me.username })
          ),
        context
      })
    }
  })

/** Instagram Login's entry in the app's direct routes (app/src/DirectRoutes.ts). */
export const instagramDirectRoute: DirectRoute = {
  platform: "instagram",
  defaults: instagramHosts,
  build: (endpoints) => instagramLoginRoute(endpoints)
}
