import { type HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import type { Headers } from "@effect/platform/Headers"
import { type Credentials } from "@herald/core"
import { Clock, Effect, type Schema } from "effect"
import { accessToken, type PlatformCallError, PlatformRefusal, refusal } from "../kit/index.js"
import { classify } from "./XWire.js"

/**
 * When X's 24-hour user (or app) limit is spent, the 15-minute window's reset says too little:
 * the wait runs to the 24-hour reset (epoch seconds), as twitter-api-v2 reads it.
 */
const dayLimitWaitMs = (headers: Headers, nowMillis: number): number | null => {
  for (const scope of ["user", "app"]) {
    if (headers[`x-${scope}-limit-24hour-remaining`]?.trim() !== "0") continue
    const reset = Number(headers[`x-${scope}-limit-24hour-reset`])
    if (Number.isFinite(reset) && reset > 0) return Math.max(0, Math.round(reset * 1000 - nowMillis))
  }
  return null
}

/** A failed X reply as a PlatformRefusal on Herald's taxonomy, with the longest wait X asked for. */
export const xRefusal = (response: HttpClientResponse.HttpClientResponse, context: { readonly media: boolean }) =>
  Effect.gen(function*() {
    const refused = yield* refusal(response, (reply) => classify(reply, context))
    if (refused.error.category !== "rate_limited") return refused
    const day = dayLimitWaitMs(response.headers, yield* Clock.currentTimeMillis)
    return day === null || (refused.retryAfterMs !== null && refused.retryAfterMs >= day)
      ? refused
      : new PlatformRefusal({ error: refused.error, retryAfterMs: day })
  })

/** Sends `request` and reads a 2xx reply through `schema`; any other status is X's refusal. */
export const exchange = <A, I>(
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  schema: Schema.Schema<A, I>,
  context: { readonly media: boolean } = { media: false }
): Effect.Effect<A, PlatformCallError> =>
  Effect.flatMap(client.execute(request), (response): Effect.Effect<A, PlatformCallError> =>
    response.status >= 200 && response.status < 300
      ? HttpClientResponse.schemaBodyJson(schema)(response)
      : Effect.flatMap(xRefusal(response, context), Effect.fail))

/** The request with the account's bearer token. */
export const withToken = (credentials: Credentials) => HttpClientRequest.bearerToken(accessToken(credentials))
