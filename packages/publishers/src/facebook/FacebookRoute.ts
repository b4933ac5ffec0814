/** Facebook Pages' direct route: its adapters and its OAuth provider (Facebook Login), over graph.facebook.com and facebook.com. */
import type { OAuthProvider, RouteAdapters } from "@herald/core"
import { Effect, Option } from "effect"
import { type DirectRoute, platformClient, type PlatformEndpoints } from "../kit/index.js"
import { facebookLogin, facebookLoginHosts, loginConfigId } from "../meta/FacebookLogin.js"
import { network } from "./FacebookApi.js"
import { facebookMetrics } from "./FacebookMetrics.js"
import { facebookOAuth } from "./FacebookOAuth.js"
import { facebookProbe } from "./FacebookProbe.js"
import { facebookPublisher } from "./FacebookPublisher.js"
import type { Needs } from "./FacebookToken.js"

export const facebookRoute = (
  endpoints: PlatformEndpoints,
  configId: Option.Option<string> = Option.none()
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const api = yield* platformClient(endpoints.apiBaseUrl)
    return {
      adapters: {
        platform: "facebook",
        route: "direct",
        publisher: facebookPublisher(api, context),
        metrics: facebookMetrics(api, context),
        probe: facebookProbe(api, context)
      },
      oauth: facebookOAuth(facebookLogin(endpoints, api, { network, configId }), api, context)
    }
  })

/** Facebook's entry in the app's direct routes (app/src/DirectRoutes.ts). */
export const facebookDirectRoute: DirectRoute = {
  platform: "facebook",
  defaults: facebookLoginHosts,
  build: (endpoints) =>
    Effect.flatMap(loginConfigId("HERALD_FACEBOOK_LOGIN_CONFIG_ID"), (configId) => facebookRoute(endpoints, configId))
}
