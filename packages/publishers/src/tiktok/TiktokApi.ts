/**
 * open.tiktokapis.com as Herald calls it: JSON bodies with the user's token as a Bearer header,
 * every answer in TikTok's envelope `{ data, error: { code, message, log_id } }`, where any code
 * but "ok" is a refusal whatever the HTTP status (creator_info answers a banned or capped
 * creator with 200).
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Schema } from "effect"
import { type PlatformCallError, PlatformRefusal, refusal } from "../kit/index.js"
import { classifyTiktok, TiktokError, waitOf } from "./TiktokErrors.js"

/** A JSON call to the API with the user's token; `fields` go in the query (TikTok's field selection). */
export const api = (method: "GET" | "POST", path: string, token: string, body?: unknown) => {
  const request = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.bearerToken(token), HttpClientRequest.acceptJson)
  return body === undefined ? request : HttpClientRequest.bodyUnsafeJson(request, body)
}

/** A rate_limited refusal TikTok gave no wait for waits its documented window. */
const withWait = (refused: PlatformRefusal): PlatformRefusal =>
  refused.error.category === "rate_limited" && refused.retryAfterMs === null
    ? new PlatformRefusal({ error: refused.error, retryAfterMs: waitOf(refused.error.code) })
    : refused

/** TikTok sends publicaly_available_post_id as int64 numbers, past what a JS number holds exactly: they are read as text. */
const quoteIds = (text: string) =>
  text.replace(/("publicaly_available_post_id"\s*:\s*\[)([^\]]*)\]/g, (_, open: string, ids: string) => `${open}${ids.replace(/"?(-?\d+)"?/g, '"$1"')}]`)

/**
 * Sends the request and reads `data` through `schema`: a status of 300 or more, or an envelope
 * whose error code is not "ok", is a PlatformRefusal read by classifyTiktok; a 2xx that is not
 * TikTok's envelope is a ParseError (the call may have acted).
 */
export const call = <A, I>(client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, schema: Schema.Schema<A, I>): Effect.Effect<A, PlatformCallError> =>
  Effect.gen(function*() {
    const response = yield* client.execute(request)
    if (response.status >= 300) return yield* Effect.fail(withWait(yield* refusal(response, classifyTiktok)))
    const text = quoteIds(yield* response.text)
    const envelope = yield* Schema.decodeUnknown(Schema.parseJson(Schema.Struct({ data: Schema.optional(Schema.Unknown), error: TiktokError })))(text)
    if (envelope.error.code !== "ok") {
      return yield* Effect.fail(withWait(new PlatformRefusal({ error: classifyTiktok({ status: response.status, body: envelope }), retryAfterMs: null })))
    }
    return yield* Schema.decodeUnknown(schema)(envelope.data ?? {})
  }).pipe(Effect.scoped)
