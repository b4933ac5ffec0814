/**
 * Facebook Pages' connection (meta/FacebookLogin): the login dialog asking for the Pages
 * permissions, the code exchanged for a long-lived user token, and one Herald account per Page
 * the user may create content on (task CREATE_CONTENT), each with its own Page token. The user
 * is never an account: a Facebook profile cannot be posted to through the API.
 */
import { type GrantedAccount, type OAuthProvider, PlatformCallFailed, type PlatformIdentity, type TokenGrant } from "@herald/core"
import { Array as Arr, type Context, Effect, Schema } from "effect"
import { asRead, consentUrl, type PlatformClient } from "../kit/index.js"
import type { FacebookLogin, ManagedPage } from "../meta/FacebookLogin.js"
import { grantedUser, type KeptUserToken, keptUserFields, pageAgain, userGrant } from "../meta/PageGrants.js"
import { graph, network, sendJson } from "./FacebookApi.js"
import { type Needs, type StoredToken, tokenOf } from "./FacebookToken.js"

/**
 * What Herald asks for: the Pages list, posting (feed, photos, reels, stories), videos, reading
 * posts and their insights (metrics, reconcile). Each needs Meta's app review for Pages other
 * than the app's own (docs/networks/facebook.md).
 */
export const facebookScopes = [
  "pages_show_list",
  "pages_read_engagement",
  "pages_manage_posts",
  "publish_video",
  "read_insights",
  "business_management"
] as const

/** The task a Page role needs to post (Pages API, "Posts", requirements). */
const postingTask = "CREATE_CONTENT"

const Me = Schema.Struct({ id: Schema.String, name: Schema.String })

/** A Page's credentials: its token, and the user token it can be asked for again with. */
const pageCredentials = (page: ManagedPage, user: KeptUserToken): StoredToken => ({
  access_token: page.accessToken,
  page_id: page.id,
  page_name: page.name,
  ...keptUserFields(user)
})

export const facebookOAuth = (login: FacebookLogin, api: PlatformClient, context: Context.Context<Needs>): OAuthProvider => {
  const exchange: OAuthProvider["exchange"] = ({ code, redirectUri }) => Effect.map(login.userToken({ code, redirectUri }), userGrant)

  /** The Page answers as `me` with its own token. */
  const identify: OAuthProvider["identify"] = (credentials) =>
    Effect.gen(function*() {
      const stored = yield* tokenOf(credentials)
      const page = yield* sendJson(api.read, graph("GET", "me?fields=id,name", stored.access_token), Me).pipe(asRead)
      return { platformAccountId: page.id, username: page.name } satisfies PlatformIdentity
    }).pipe(Effect.provide(context))

  const accountsOf: NonNullable<OAuthProvider["accountsOf"]> = (grant) =>
    Effect.gen(function*() {
      const user = yield* grantedUser(network, grant)
      const pages = (yield* login.pages(user.access_token)).filter((page) => page.tasks.includes(postingTask))
      const accounts = pages.map((page): GrantedAccount => ({
        // Page tokens obtained with a long-lived user token do not expire.
        grant: { credentials: pageCredentials(page, user), expiresAt: null },
        identity: { platformAccountId: page.id, username: page.name }
      }))
      if (Arr.isNonEmptyReadonlyArray(accounts)) return accounts
      return yield* new PlatformCallFailed({
        error: {
          category: "permission_missing",
          code: "no_pages",
          message: `the Facebook user granted no Page they may post to (the ${postingTask} task): choose at least one Page in the login dialog`
        },
        retryAfterMs: null
      })
    })

  /** A Page token Facebook refused, asked for again with the user token kept beside it. */
  const refresh: OAuthProvider["refresh"] = (credentials) =>
    Effect.gen(function*() {
      const stored = yield* tokenOf(credentials)
      const page = yield* pageAgain(login, network, stored.user_token, stored.page_id)
      return {
        credentials: pageCredentials(page, { access_token: stored.user_token, ...(stored.user_token_expires_at === undefined ? {} : { expires_at: stored.user_token_expires_at }) }),
        expiresAt: null
      } satisfies TokenGrant
    })

  return {
    platform: "facebook",
    start: consentUrl(({ redirectUri, state }) => login.dialogUrl({ redirectUri, state, scopes: facebookScopes })),
    exchange,
    refresh,
    identify,
    accountsOf
  }
}
