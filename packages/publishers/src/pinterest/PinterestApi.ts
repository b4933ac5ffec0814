/**
 * Pinterest's API v5 as Herald calls it: the user's token as a Bearer header, JSON bodies, and
 * refusals in Pinterest's envelope `{ code, message }` read onto Herald's taxonomy (the table is
 * in docs/networks/pinterest.md).
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import type { DeliveryError } from "@herald/core"
import { Effect, Option, Schema } from "effect"
import { categoryOfStatus, type PlatformCallError, PlatformRefusal, refusal } from "../kit/index.js"

/** What the refused call was doing: creating a pin, handling media, or reading. */
export type Stage = "pin" | "media" | "read"

const Envelope = Schema.Struct({
  code: Schema.optional(Schema.Number),
  message: Schema.optional(Schema.String),
  message_detail: Schema.optional(Schema.String)
})
const readEnvelope = Schema.decodeUnknownOption(Envelope)

const hints: Partial<Record<number, string>> = {
  401: "Pinterest refused the token even after a refresh; reconnect the account",
  403: "the connection lacks a Pinterest scope or access to this board; reconnect with it granted"
}

/** A refusal as a DeliveryError: Pinterest's code and message kept, the category by status and stage. */
export const classify = (stage: Stage) => (reply: { readonly status: number; readonly body: unknown }): DeliveryError => {
  const envelope = Option.getOrElse(readEnvelope(reply.body), (): typeof Envelope.Type => ({}))
  const message = [envelope.message, envelope.message_detail].filter((part) => part !== undefined).join(": ") ||
    (typeof reply.body === "string" && reply.body !== "" ? reply.body.slice(0, 200) : `Pinterest answered ${reply.status}`)
  // Pinterest answers spam blocks with 429 too: waiting does not help, the content is refused.
  const spam = reply.status === 429 && /spam/i.test(message)
  const category = spam
    ? "content_rejected"
    : reply.status === 401 || reply.status === 403 || reply.status === 429 || reply.status >= 500
    ? categoryOfStatus(reply.status)
    : stage === "media"
    ? "media_rejected"
    : categoryOfStatus(reply.status)
  const hint = hints[reply.status]
  return {
    category,
    code: spam ? "spam" : envelope.code === undefined ? `http_${reply.status}` : String(envelope.code),
    message: hint === undefined ? `${message} (HTTP ${reply.status})` : `${message} (HTTP ${reply.status}; ${hint})`
  }
}

/** Sends the request; a status of 300 or more is a PlatformRefusal classified for `stage`. */
export const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: Stage): Effect.Effect<string, PlatformCallError> =>
  Effect.gen(function*() {
    const response = yield* client.execute(request)
    if (response.status >= 300) return yield* Effect.flip(refusal(response, classify(stage)))
    return yield* response.text
  }).pipe(Effect.scoped)

/** Sends the request and reads its JSON body through `reply`. */
export const sendJson = <A, I>(client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: Stage, reply: Schema.Schema<A, I>) =>
  Effect.flatMap(send(client, request, stage), (text) => Schema.decodeUnknown(Schema.parseJson(reply))(text))

/** A call to the API with the user's token (paths under /v5). */
export const api = (method: "GET" | "POST" | "DELETE", path: string, token: string) =>
  HttpClientRequest.make(method)(`/v5/${path.replace(/^\/+/, "")}`).pipe(HttpClientRequest.bearerToken(token), HttpClientRequest.acceptJson)

/** A refusal Herald makes up from an answer Pinterest gave in a success's shape (a failed upload). */
export const refusedWith = (error: DeliveryError) => new PlatformRefusal({ error, retryAfterMs: null })

export const pinUrl = (id: string) => `https://www.pinterest.com/pin/${id}/`
