/**
 * A call to one of Meta's Graph hosts (graph.facebook.com, graph.instagram.com, graph.threads.net)
 * as Herald makes it: paths under the host's pinned version (GraphVersions), the token as a Bearer
 * header, refusals in Meta's envelope read by GraphErrors with `network` naming the platform.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Schema } from "effect"
import { type PlatformCallError, refusal } from "../kit/index.js"
import { classifyGraph, type GraphStage } from "./GraphErrors.js"
import { type GraphHost, versioned } from "./GraphVersions.js"

export const graphCalls = (network: string) => {
  /** Sends the request; a status of 300 or more is a PlatformRefusal read from Meta's envelope. */
  const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: GraphStage = "call"): Effect.Effect<string, PlatformCallError> =>
    Effect.gen(function*() {
      const response = yield* client.execute(request)
      if (response.status >= 300) return yield* Effect.flip(refusal(response, classifyGraph(network, stage)))
      return yield* response.text
    }).pipe(Effect.scoped)

  /** Sends the request and reads its JSON body through `reply`. */
  const sendJson = <A, I>(
    client: HttpClient.HttpClient,
    request: HttpClientRequest.HttpClientRequest,
    reply: Schema.Schema<A, I>,
    stage: GraphStage = "call"
  ) => Effect.flatMap(send(client, request, stage), (text) => Schema.decodeUnknown(Schema.parseJson(reply))(text))

  return { send, sendJson }
}

/** A call to a Graph host's pinned version with the token. */
export const graphRequest = (host: GraphHost) => (method: "GET" | "POST" | "DELETE", path: string, token: string) =>
  HttpClientRequest.make(method)(versioned(host, path)).pipe(HttpClientRequest.bearerToken(token))
