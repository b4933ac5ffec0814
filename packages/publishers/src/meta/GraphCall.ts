/**
 * One call to a Graph host (graph.facebook.com, graph.instagram.com, graph.threads.net) as
 * Herald's publishers make it: a status of 300 or more is a PlatformRefusal read from Meta's
 * envelope (GraphErrors), naming the network in its message.
 */
import { type HttpClient, type HttpClientRequest } from "@effect/platform"
import { PlatformCallFailed } from "@herald/core"
import { Effect, Schema } from "effect"
import { type PlatformCallError, refusal } from "../kit/index.js"
import { classifyGraph, type GraphStage } from "./GraphErrors.js"

/** Sends the request and answers the reply's text, or the refusal in Meta's envelope. */
export const sendGraph = (
  network: string,
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  stage: GraphStage = "call"
): Effect.Effect<string, PlatformCallError> =>
  Effect.gen(function*() {
    const response = yield* client.execute(request)
    if (response.status >= 300) return yield* Effect.flip(refusal(response, classifyGraph(network, stage)))
    return yield* response.text
  }).pipe(Effect.scoped)

/** Sends the request and reads its JSON body through `reply`. */
export const sendGraphJson = <A, I>(
  network: string,
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  reply: Schema.Schema<A, I>,
  stage: GraphStage = "call"
) => Effect.flatMap(sendGraph(network, client, request, stage), (text) => Schema.decodeUnknown(Schema.parseJson(reply))(text))

/**
 * A token call's failure with no secret in it: Meta's token exchanges carry the app secret or a
 * token in their query (as Meta documents them), and a transport error's text names the URL. A
 * refusal means connecting again (permission_missing stays what it is); no answer stays transient.
 */
export const tokenCallFailed = (network: string, what: string) => (failed: PlatformCallFailed): PlatformCallFailed => {
  const { category, code } = failed.error
  if (category === "transient" || category === "rate_limited" || code === "destination_refused") {
    return new PlatformCallFailed({ error: { category, code, message: `${network}'s ${what} was not reached or did not answer (${code})` }, retryAfterMs: failed.retryAfterMs })
  }
  return new PlatformCallFailed({
    error: { category: category === "permission_missing" ? category : "auth_expired", code, message: `${network} refused the ${what}: ${failed.error.message}; connect the account again` },
    retryAfterMs: null
  })
}
