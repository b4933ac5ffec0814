/**
 * graph.threads.net as Herald calls it: paths under the pinned version (meta/GraphVersions), the
 * user's token as a Bearer header, refusals in Meta's envelope read by meta/GraphErrors.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import type { Schema } from "effect"
import { sendGraph, sendGraphJson } from "../meta/GraphCall.js"
import type { GraphStage } from "../meta/GraphErrors.js"
import { versioned } from "../meta/GraphVersions.js"

export const network = "Threads"

/** Sends the request; a status of 300 or more is a PlatformRefusal read from Meta's envelope. */
export const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: GraphStage = "call") =>
  sendGraph(network, client, request, stage)

/** Sends the request and reads its JSON body through `reply`. */
export const sendJson = <A, I>(
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  reply: Schema.Schema<A, I>,
  stage: GraphStage = "call"
) => sendGraphJson(network, client, request, reply, stage)

/** A call to the versioned Graph API with the user's token. */
export const graph = (method: "GET" | "POST" | "DELETE", path: string, token: string) =>
  HttpClientRequest.make(method)(versioned("threads", path)).pipe(HttpClientRequest.bearerToken(token))
