/** LinkedIn's direct route: its adapters and its OAuth provider, over one API and one auth base URL. */
import type { OAuthProvider, RouteAdapters } from "@herald/core"
import { Config, Effect } from "effect"
import { type DirectRoute, platformClient, type PlatformEndpoints } from "../kit/index.js"
import { linkedinMetrics } from "./LinkedinMetrics.js"
import { linkedinOAuth, memberScopes, organizationScopes } from "./LinkedinOAuth.js"
import { linkedinProbe } from "./LinkedinProbe.js"
import { linkedinPublisher } from "./LinkedinPublisher.js"
import type { Needs } from "./Token.js"

/** LinkedIn's real hosts: the API, and the OAuth pages and token endpoint. */
export const linkedinHosts = { apiBaseUrl: "https://api.linkedin.com", authBaseUrl: "https://www.linkedin.com" } as const

export interface LinkedinOptions {
  /** The scopes the consent page asks for; memberScopes, plus organizationScopes for pages. */
  readonly scopes?: ReadonlyArray<string>
}

export const linkedinRoute = (
  endpoints: PlatformEndpoints,
  options: LinkedinOptions = {}
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const api = yield* platformClient(endpoints.apiBaseUrl)
    const auth = yield* platformClient(endpoints.authBaseUrl)
    return {
      adapters: {
        platform: "linkedin",
        route: "direct",
        publisher: linkedinPublisher(api, context),
        metrics: linkedinMetrics(api, context),
        probe: linkedinProbe(endpoints, { api, auth }, context)
      },
      oauth: linkedinOAuth(endpoints, { api, auth }, options.scopes ?? memberScopes, context)
    }
  })

/**
 * HERALD_LINKEDIN_ORGANIZATIONS=true: the consent page also asks for organisationScopes, and each
 * page the member administers is connected beside the member (the app needs LinkedIn's Community
 * Management API for LinkedIn to grant them).
 */
export const organizationsVariable = "HERALD_LINKEDIN_ORGANIZATIONS"

/** LinkedIn's entry in the app's direct routes (app/src/DirectRoutes.ts). */
export const linkedinDirectRoute: DirectRoute = {
  platform: "linkedin",
  defaults: linkedinHosts,
  build: (endpoints) =>
    Effect.flatMap(Config.withDefault(Config.boolean(organizationsVariable), false), (organizations) =>
      linkedinRoute(endpoints, { scopes: organizations ? [...memberScopes, ...organizationScopes] : memberScopes }))
}
