/**
 * Instagram's Graph API as Herald calls it, through either login (docs/networks/instagram.md):
 * Instagram Login on graph.instagram.com, or Facebook Login for Business on graph.facebook.com.
 * The calls are the same on both hosts; what each login allows differs (InstagramLogin).
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import type { AccountTokens, ConnectionRoute, MediaStorage, PublishCheckpoints } from "@herald/core"
import type { Schema } from "effect"
import { sendGraph, sendGraphJson } from "../meta/GraphCall.js"
import type { GraphStage } from "../meta/GraphErrors.js"
import { type GraphHost, versioned } from "../meta/GraphVersions.js"
import { userTokens } from "../meta/UserToken.js"

export const network = "Instagram"

export const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: GraphStage = "call") =>
  sendGraph(network, client, request, stage)

export const sendJson = <A, I>(client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, reply: Schema.Schema<A, I>, stage: GraphStage = "call") =>
  sendGraphJson(network, client, request, reply, stage)

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

/** A call to the login's Graph host, under its pinned version, with the account's token. */
export const graphOf = (login: InstagramLogin) => (method: "GET" | "POST" | "DELETE", path: string, token: string) =>
  HttpClientRequest.make(method)(versioned(login.host, path)).pipe(HttpClientRequest.bearerToken(token))
