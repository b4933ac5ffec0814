/**
 * Instagram's Graph API as Herald calls it, through either login (docs/networks/instagram.md):
 * Instagram Login on graph.instagram.com, or Facebook Login for Business on graph.facebook.com.
 * The calls are the same on both hosts; what each login allows differs (InstagramLogin).
 */
import type { HttpClient } from "@effect/platform"
import type { AccountTokens, ConnectionRoute, MediaStorage, PublishCheckpoints } from "@herald/core"
import { graphCalls, graphRequest } from "../meta/GraphCalls.js"
import type { GraphHost } from "../meta/GraphVersions.js"
import { userTokens } from "../meta/UserToken.js"

export const network = "Instagram"

export const { send, sendJson } = graphCalls(network)

export const { tokenOf, withToken } = userTokens(network)

/** What Instagram's adapters run on, captured when a route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints

/** One of Instagram's logins: its connection route, its Graph host, and what it lets Herald do. */
export interface InstagramLogin {
  readonly route: ConnectionRoute
  /** How replies name the login ("Instagram Login"). */
  readonly name: string
  readonly host: GraphHost
  /** DELETE /{ig-media-id} (instagram_manage_contents) answers only through Facebook Login. */
  readonly deletes: boolean
  /** is_paid_partnership and branded_content_sponsor_ids are Facebook Login's only. */
  readonly brandedContent: boolean
  /** The permissions publishing needs, as the probe reports them. */
  readonly publishScopes: ReadonlyArray<string>
}

export const graphOf = (login: InstagramLogin) => graphRequest(login.host)
