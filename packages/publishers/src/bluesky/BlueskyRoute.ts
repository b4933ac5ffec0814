/** Bluesky's direct route: its adapters, atproto OAuth and the app-password login, over one PDS base URL. */
import type { Credentials, OAuthProvider, PasswordLogin, RouteAdapters } from "@herald/core"
import { Config, Effect } from "effect"
import { type DirectRoute, type PlatformEndpoints, platformClient } from "../kit/index.js"
import { atprotoOAuthProvider } from "./AtprotoOAuth.js"
import { blueskyLogin } from "./BlueskyLogin.js"
import { blueskyMetrics } from "./BlueskyMetrics.js"
import { blueskyProbe } from "./BlueskyProbe.js"
import { blueskyPublisher, type Needs } from "./BlueskyPublisher.js"
import { isOAuthSession } from "./Session.js"

/** Where did:plc documents are read (HERALD_BLUESKY_PLC_URL). */
export const plcDirectory = Config.string("HERALD_BLUESKY_PLC_URL").pipe(
  Config.withDefault("https://plc.directory"),
  Config.validate({ message: "HERALD_BLUESKY_PLC_URL must be an absolute http(s) URL", validation: (url) => /^https?:\/\/[^/]/.test(url) })
)

export const blueskyRoute = (
  config: Pick<PlatformEndpoints, "apiBaseUrl" | "authBaseUrl" | "clientId"> & { readonly plcUrl: string }
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly login: PasswordLogin; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.gen(function*() {
    const client = yield* platformClient(config.apiBaseUrl)
    const context = yield* Effect.context<Needs>()
    const oauth = atprotoOAuthProvider({
      resolver: client,
      anywhere: yield* platformClient(""),
      entryway: config.authBaseUrl,
      plcUrl: config.plcUrl,
      clientId: config.clientId
    })
    const password = blueskyLogin(client)
    // One renewal for both kinds of session, since either may be stored for an account.
    const refresh = (credentials: Credentials) => isOAuthSession(credentials) ? oauth.refresh(credentials) : password.refresh(credentials)
    return {
      adapters: {
        platform: "bluesky",
        route: "direct",
        publisher: blueskyPublisher(client, context),
        metrics: blueskyMetrics(client, context),
        probe: blueskyProbe(client, context)
      },
      login: { ...password, refresh },
      oauth: { ...oauth, refresh }
    }
  })

/** Bluesky in the app's list of direct routes: the entryway Bluesky hosts accounts behind. */
export const blueskyDirectRoute: DirectRoute = {
  platform: "bluesky",
  defaults: { apiBaseUrl: "https://bsky.social", authBaseUrl: "https://bsky.social" },
  // atproto clients are not registered with the platform: the client id is Herald's own metadata URL.
  oauthUnregistered: true,
  build: (endpoints) => Effect.flatMap(plcDirectory, (plcUrl) => blueskyRoute({ ...endpoints, plcUrl }))
}
