/**
 * Threads' OAuth (developers.facebook.com/docs/threads/get-started): Meta's user login
 * (meta/UserLogin) with the consent page on threads.net, the code exchanged at
 * graph.threads.net, th_exchange_token for the long-lived token (60 days) and th_refresh_token.
 */
import type { OAuthProvider } from "@herald/core"
import { type Context, Schema } from "effect"
import type { PlatformClient, PlatformEndpoints } from "../kit/index.js"
import { userLogin } from "../meta/UserLogin.js"
import { graph, network, sendJson } from "./ThreadsApi.js"
import type { Needs } from "./ThreadsToken.js"

/**
 * What Herald asks for: identity, publishing, insights (metrics), deletes (takedown) and the
 * Instagram story share (crosspost_ig_story). Each needs Meta's app review for accounts other
 * than the app's testers (docs/networks/threads.md).
 */
export const threadsScopes = [
  "threads_basic",
  "threads_content_publish",
  "threads_manage_insights",
  "threads_delete",
  "threads_share_to_instagram"
] as const

export const Me = Schema.Struct({ id: Schema.String, username: Schema.String })

export const threadsOAuth = (endpoints: PlatformEndpoints, api: PlatformClient, context: Context.Context<Needs>): OAuthProvider =>
  userLogin({
    platform: "threads",
    network,
    scopes: threadsScopes,
    endpoints,
    codeClient: api,
    api,
    grants: { exchange: "th_exchange_token", refresh: "th_refresh_token" },
    me: (accessToken) => sendJson(api.read, graph("GET", "me?fields=id,username", accessToken), Me),
    context
  })
