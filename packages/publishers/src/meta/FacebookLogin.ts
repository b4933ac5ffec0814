/**
 * Facebook Login (for Business), shared by the routes that act through Facebook Pages: Facebook
 * Pages themselves and Instagram's Facebook Login route. The login dialog on facebook.com, the
 * code exchanged at graph.facebook.com/oauth/access_token for a short-lived user token (the app
 * authenticates with its secret; no PKCE), that token exchanged at once for a long-lived one
 * (fb_exchange_token, about 60 days; Facebook has no refresh grant), and the Pages the user
 * manages with each Page's own token (developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived).
 * A Page token obtained with a long-lived user token has no expiry; it dies with a password
 * change, a lost Page role or the app being removed, and can then be asked for again with the
 * user token while that lives.
 */
import { HttpClientRequest } from "@effect/platform"
import { PlatformCallFailed } from "@herald/core"
import { Array as Arr, Clock, Config, DateTime, Effect, Option, Redacted, Schema } from "effect"
import { asRead, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { sendGraphJson, tokenCallFailed } from "./GraphCall.js"
import { graphVersions, versioned } from "./GraphVersions.js"

/** Facebook Login's real hosts: the login dialog, and the Graph API (token endpoint included). */
export const facebookLoginHosts = { authBaseUrl: "https://www.facebook.com", apiBaseUrl: "https://graph.facebook.com" } as const

/**
 * A Facebook Login for Business configuration id, read from `variable` (made in the app
 * dashboard, it names the permissions in place of a scope list); blank is none.
 */
export const loginConfigId = (variable: string) => Config.option(Config.string(variable)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

/** A Facebook user token and when it expires (null: Facebook gave no expiry). */
export interface UserToken {
  readonly accessToken: string
  readonly expiresAt: DateTime.Utc | null
}

/** The Instagram professional account linked to a Page (Instagram's Facebook Login route posts as it). */
export interface LinkedInstagram {
  readonly id: string
  readonly username: string | null
}

/** A Page the user manages, with the Page's own token. */
export interface ManagedPage {
  readonly id: string
  readonly name: string
  readonly accessToken: string
  /** What the user may do on the Page (CREATE_CONTENT, MANAGE, MODERATE, ANALYZE, ADVERTISE, MESSAGING). */
  readonly tasks: ReadonlyArray<string>
  readonly instagram: LinkedInstagram | null
}

const TokenReply = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.Number)
})

const PageEntry = Schema.Struct({
  id: Schema.String,
  name: Schema.optional(Schema.String),
  // Pages the user did not tick in the dialog come back without a token (Postiz #1679).
  access_token: Schema.optional(Schema.String),
  tasks: Schema.optional(Schema.Array(Schema.String)),
  instagram_business_account: Schema.optional(Schema.Struct({ id: Schema.String, username: Schema.optional(Schema.String) }))
})
type PageEntry = typeof PageEntry.Type

const PageList = Schema.Struct({
  data: Schema.Array(PageEntry),
  paging: Schema.optional(Schema.Struct({
    cursors: Schema.optional(Schema.Struct({ after: Schema.optional(Schema.String) })),
    next: Schema.optional(Schema.String)
  }))
})

const pageFields = "id,name,access_token,tasks,instagram_business_account{id,username}"
/** Pages per listing call (Graph's default is 25). */
const listPage = 100

export interface FacebookLogin {
  /**
   * The login dialog's URL. `scopes` are the permissions asked for; a Facebook Login for Business
   * configuration (`configId`, made in the app dashboard) names them instead when given.
   */
  readonly dialogUrl: (request: { readonly state: string; readonly redirectUri: string; readonly scopes: ReadonlyArray<string> }) => string
  /** The dialog's code exchanged for a long-lived user token (through the short-lived one). */
  readonly userToken: (request: { readonly code: string; readonly redirectUri: string }) => Effect.Effect<UserToken, PlatformCallFailed>
  /** Every Page the user manages and granted this app, with its token (pages without one are left out). */
  readonly pages: (userToken: string) => Effect.Effect<ReadonlyArray<ManagedPage>, PlatformCallFailed>
  /** One Page, its token asked for again with the user token; a Page the user no longer manages is not_found or permission_missing. */
  readonly page: (userToken: string, pageId: string) => Effect.Effect<ManagedPage, PlatformCallFailed>
}

/**
 * Facebook Login for the app of `endpoints` (its client id and secret; the dialog on its auth
 * base URL, tokens and Pages on the Graph client `api`). `network` names the platform in messages.
 */
export const facebookLogin = (
  endpoints: PlatformEndpoints,
  api: PlatformClient,
  options: { readonly network: string; readonly configId?: Option.Option<string> }
): FacebookLogin => {
  const { network } = options
  const clientId = Option.getOrElse(endpoints.clientId, () => "")
  const clientSecret = () => Option.match(endpoints.clientSecret, { onNone: () => "", onSome: Redacted.value })

  const tokenCall = (query: Record<string, string>, what: string) =>
    Effect.gen(function*() {
      const reply = yield* sendGraphJson(network, api.read, HttpClientRequest.get(`${versioned("facebook", "oauth/access_token")}?${new URLSearchParams(query)}`), TokenReply)
      const now = yield* Clock.currentTimeMillis
      return {
        accessToken: reply.access_token,
        expiresAt: reply.expires_in === undefined ? null : DateTime.unsafeMake(now + reply.expires_in * 1000)
      } satisfies UserToken
    }).pipe(asRead, Effect.mapError(tokenCallFailed(network, what)))

  const userToken: FacebookLogin["userToken"] = ({ code, redirectUri }) =>
    Effect.gen(function*() {
      const short = yield* tokenCall({ client_id: clientId, redirect_uri: redirectUri, client_secret: clientSecret(), code: code.replace(/#_$/, "") }, "authorization code")
      return yield* tokenCall(
        { grant_type: "fb_exchange_token", client_id: clientId, client_secret: clientSecret(), fb_exchange_token: short.accessToken },
        "long-lived token exchange"
      )
    })

  const managed = (entry: PageEntry): Option.Option<ManagedPage> =>
    entry.access_token === undefined ? Option.none() : Option.some({
      id: entry.id,
      name: entry.name ?? entry.id,
      accessToken: entry.access_token,
      tasks: entry.tasks ?? [],
      instagram: entry.instagram_business_account === undefined
        ? null
        : { id: entry.instagram_business_account.id, username: entry.instagram_business_account.username ?? null }
    })

  const graphGet = (path: string, token: string) =>
    HttpClientRequest.get(versioned("facebook", path)).pipe(HttpClientRequest.bearerToken(token))

  const pages: FacebookLogin["pages"] = (token) =>
    Effect.gen(function*() {
      const found: Array<ManagedPage> = []
      let after: string | undefined
      for (;;) {
        const query = new URLSearchParams({ fields: pageFields, limit: String(listPage), ...(after === undefined ? {} : { after }) })
        const reply = yield* sendGraphJson(network, api.read, graphGet(`me/accounts?${query}`, token), PageList)
        found.push(...Arr.getSomes(reply.data.map(managed)))
        after = reply.paging?.cursors?.after
        if (reply.paging?.next === undefined || after === undefined || reply.data.length === 0) return found
      }
    }).pipe(asRead)

  const page: FacebookLogin["page"] = (token, pageId) =>
    Effect.gen(function*() {
      const entry = yield* sendGraphJson(network, api.read, graphGet(`${encodeURIComponent(pageId)}?fields=${pageFields}`, token), PageEntry)
      return yield* Option.match(managed(entry), {
        onNone: () =>
          Effect.fail(new PlatformCallFailed({
            error: { category: "permission_missing", code: "page_token_withheld", message: `${network} gave no token for Page ${pageId}: the user does not manage it or did not grant it to this app` },
            retryAfterMs: null
          })),
        onSome: Effect.succeed
      })
    }).pipe(asRead)

  return {
    dialogUrl: ({ redirectUri, scopes, state }) => {
      const configId = Option.getOrUndefined(options.configId ?? Option.none())
      return `${endpoints.authBaseUrl}/${graphVersions.facebook}/dialog/oauth?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        state,
        response_type: "code",
        ...(configId === undefined ? { scope: scopes.join(",") } : { config_id: configId })
      })}`
    },
    userToken,
    pages,
    page
  }
}
