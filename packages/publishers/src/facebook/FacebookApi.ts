/**
 * graph.facebook.com as the Facebook Pages route calls it: paths under the pinned version
 * (meta/GraphVersions), the Page's token as a Bearer header, refusals in Meta's envelope.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import type { Schema } from "effect"
import { sendGraph, sendGraphJson } from "../meta/GraphCall.js"
import type { GraphStage } from "../meta/GraphErrors.js"
import { versioned } from "../meta/GraphVersions.js"

export const network = "Facebook"

export const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: GraphStage = "call") =>
  sendGraph(network, client, request, stage)

export const sendJson = <A, I>(
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  reply: Schema.Schema<A, I>,
  stage: GraphStage = "call"
) => sendGraphJson(network, client, request, reply, stage)

/** A call to the versioned Graph API with the Page's token. */
export const graph = (method: "GET" | "POST" | "DELETE", path: string, token: string) =>
  HttpClientRequest.make(method)(versioned("facebook", path)).pipe(HttpClientRequest.bearerToken(token))
