/** LinkedIn's direct route: its adapters and its OAuth provider, over one API and one auth base URL. */
import type { RouteAdapters } from "@herald/core"
import { Effect } from "effect"
import type { OAuthProvider, PlatformEndpoints } from "./KitShim.js"
import { linkedinMetrics } from "./LinkedinMetrics.js"
import { linkedinOAuth, memberScopes } from "./LinkedinOAuth.js"
import { linkedinProbe } from "./LinkedinProbe.js"
import { linkedinPublisher } from "./LinkedinPublisher.js"
import type { Needs } from "./Token.js"

export interface LinkedinOptions {
  /** The scopes the consent page asks for; memberScopes, plus organizationScopes for pages. */
  readonly scopes?: ReadonlyArray<string>
}

export const linkedinRoute = (
  config: PlatformEndpoints,
  options: LinkedinOptions = {}
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.map(Effect.context<Needs>(), (context) => ({
    adapters: {
      platform: "linkedin",
      route: "direct",
      publisher: linkedinPublisher(config.apiBaseUrl, context),
      metrics: linkedinMetrics(config.apiBaseUrl, context),
      probe: linkedinProbe(config, context)
    },
    oauth: linkedinOAuth(config, options.scopes ?? memberScopes, context)
  }))
