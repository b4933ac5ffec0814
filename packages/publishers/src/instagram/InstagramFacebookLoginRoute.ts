/**
 * Instagram's route through Facebook Login for Business (developers.facebook.com/docs/instagram-platform/instagram-api-with-facebook-login):
 * the Facebook app's login dialog (meta/FacebookLogin), the long-lived user token, and one Herald
 * account per Instagram professional account linked to a Page the user manages, posting with that
 * Page's token on graph.facebook.com. The adapters are Instagram's, with what this login adds:
 * deletes and branded content.
 */
import { type GrantedAccount, type OAuthProvider, PlatformCallFailed, type PlatformIdentity, type RouteAdapters, type TokenGrant } from "@herald/core"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { asRead, consentUrl, type DirectRoute, platformClient, type PlatformEndpoints } from "../kit/index.js"
import { facebookLogin, facebookLoginHosts, loginConfigId, type ManagedPage } from "../meta/FacebookLogin.js"
import { grantedUser, type KeptUserToken, keptUserFields, pageAgain, userGrant } from "../meta/PageGrants.js"
import { StoredToken } from "../meta/UserToken.js"
import { graphOf, type InstagramLogin, type Needs, network, sendJson } from "./InstagramApi.js"
import { instagramMetrics } from "./InstagramMetrics.js"
import { instagramProbe } from "./InstagramProbe.js"
import { instagramPublisher } from "./InstagramPublisher.js"

/**
 * What Herald asks for: the Pages and their Instagram accounts, publishing, insights (metrics)
 * and deletes (takedown). Each needs Meta's app review for accounts other than the app's testers
 * (docs/networks/instagram.md).
 */
export const instagramFacebookLoginScopes = [
  "instagram_basic",
  "instagram_content_publish",
  "instagram_manage_insights",
  "instagram_manage_contents",
  "pages_show_list",
  "pages_read_engagement",
  "business_management"
] as const

export const instagramFacebookLogin: InstagramLogin = {
  route: "facebook_login",
  name: "Facebook Login",
  host: "facebook",
  deletes: true,
  brandedContent: true,
  publishScopes: ["instagram_basic", "instagram_content_publish"]
}

/**
 * An Instagram account's credentials on this route: the Page's token (no expiry) as the token the
 * adapters post with, the Instagram account, and the Page and user token it is asked for again with.
 */
const PageLinkedToken = Schema.Struct({
  ...StoredToken.fields,
  page_id: Schema.String,
  user_token: Schema.String,
  user_token_expires_at: Schema.optional(Schema.String)
})
type PageLinkedToken = typeof PageLinkedToken.Type

/** The Page tasks that let a user publish to its Instagram account (Content Publishing requirements). */
const publishingTasks = ["CREATE_CONTENT", "MANAGE"]

const Account = Schema.Struct({ id: Schema.String, username: Schema.String })

const credentialsUnusable = () =>
  new PlatformCallFailed({
    error: { category: "auth_expired", code: "credentials_unusable", message: "the stored credentials are not a Page token with its Instagram account; reconnect the account" },
    retryAfterMs: null
  })

export const instagramFacebookLoginRoute = (
  endpoints: PlatformEndpoints,
  configId: Option.Option<string> = Option.none()
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, Needs> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const api = yield* platformClient(endpoints.apiBaseUrl)
    const login = facebookLogin(endpoints, api, { network, configId })
    const graph = graphOf(instagramFacebookLogin)

    const tokenOf = (credentials: unknown) => Effect.mapError(Schema.decodeUnknown(PageLinkedToken)(credentials), credentialsUnusable)

    const credentialsOf = (page: ManagedPage, instagram: { readonly id: string; readonly username: string }, user: KeptUserToken): PageLinkedToken => ({
      access_token: page.accessToken,
      user_id: instagram.id,
      username: instagram.username,
      page_id: page.id,
      ...keptUserFields(user)
    })

    const account = (instagramId: string, pageToken: string) =>
      sendJson(api.read, graph("GET", `${encodeURIComponent(instagramId)}?fields=id,username`, pageToken), Account).pipe(asRead, Effect.provide(context))

    const identify: OAuthProvider["identify"] = (credentials) =>
      Effect.gen(function*() {
        const stored = yield* tokenOf(credentials)
        const found = yield* account(stored.user_id, stored.access_token)
        return { platformAccountId: found.id, username: found.username } satisfies PlatformIdentity
      })

    const accountsOf: NonNullable<OAuthProvider["accountsOf"]> = (grant) =>
      Effect.gen(function*() {
        const user = yield* grantedUser(network, grant)
        const pages = (yield* login.pages(user.access_token)).filter((page) => page.instagram !== null && page.tasks.some((task) => publishingTasks.includes(task)))
        const accounts = yield* Effect.forEach(pages, (page) => {
          const linked = page.instagram!
          // The listing names the account's username when the Page lets it be read; else Instagram is asked.
          const username = linked.username === null ? Effect.map(account(linked.id, page.accessToken), (found) => found.username) : Effect.succeed(linked.username)
          return Effect.map(username, (username): GrantedAccount => ({
            // Page tokens obtained with a long-lived user token do not expire.
            grant: { credentials: credentialsOf(page, { id: linked.id, username }, user), expiresAt: null },
            identity: { platformAccountId: linked.id, username }
          }))
        })
        if (Arr.isNonEmptyReadonlyArray(accounts)) return accounts
        return yield* new PlatformCallFailed({
          error: {
            category: "permission_missing",
            code: "no_instagram_accounts",
            message: "none of the Pages the Facebook user granted has an Instagram professional account linked that they may publish to " +
              `(a Page task of ${publishingTasks.join(" or ")}): link the Instagram account to a Page and choose that Page in the login dialog`
          },
          retryAfterMs: null
        })
      })

    /** A Page token Facebook refused, asked for again with the user token kept beside it. */
    const refresh: OAuthProvider["refresh"] = (credentials) =>
      Effect.gen(function*() {
        const stored = yield* tokenOf(credentials)
        const page = yield* pageAgain(login, network, stored.user_token, stored.page_id)
        return { credentials: { ...stored, access_token: page.accessToken }, expiresAt: null } satisfies TokenGrant
      })

    return {
      adapters: {
        platform: "instagram",
        route: instagramFacebookLogin.route,
        publisher: instagramPublisher(instagramFacebookLogin, api, context),
        metrics: instagramMetrics(instagramFacebookLogin, api, context),
        probe: instagramProbe(instagramFacebookLogin, api, context)
      },
      oauth: {
        platform: "instagram",
        route: instagramFacebookLogin.route,
        start: consentUrl(({ redirectUri, state }) => login.dialogUrl({ redirectUri, state, scopes: instagramFacebookLoginScopes })),
        exchange: ({ code, redirectUri }) => Effect.map(login.userToken({ code, redirectUri }), userGrant),
        refresh,
        identify,
        accountsOf
      }
    }
  })

/** Instagram's Facebook Login route in the app's direct routes (app/src/DirectRoutes.ts): the Facebook app's settings and hosts. */
export const instagramFacebookLoginDirectRoute: DirectRoute = {
  platform: "instagram",
  route: "facebook_login",
  settingsOf: "facebook",
  defaults: facebookLoginHosts,
  // Its own Facebook Login for Business configuration (the Instagram permissions), if one is made.
  build: (endpoints) => Effect.flatMap(loginConfigId("HERALD_INSTAGRAM_LOGIN_CONFIG_ID"), (configId) => instagramFacebookLoginRoute(endpoints, configId))
}
