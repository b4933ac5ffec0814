/**
 * Google's APIs as Herald calls them (YouTube Data API v3, YouTube Analytics v2): the user's token
 * as a Bearer header, and refusals in Google's error envelope
 * `{ error: { code, message, errors: [{ reason, domain, message }], status } }` read onto Herald's
 * taxonomy by the first reason Google gives (docs/networks/youtube.md has the table).
 */
import { type HttpClient, type HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import type { DeliveryError, DeliveryErrorCategory } from "@herald/core"
import { Effect, Option, Schema } from "effect"
import { categoryOfStatus, type PlatformCallError, refusal } from "../kit/index.js"

/** What the refused call was doing: a metadata or upload call is the video's, a read is neither. */
export type Stage = "video" | "thumbnail" | "read"

const Envelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.optional(Schema.Number),
    message: Schema.optional(Schema.String),
    status: Schema.optional(Schema.String),
    errors: Schema.optional(Schema.Array(Schema.Struct({ reason: Schema.optional(Schema.String), domain: Schema.optional(Schema.String) })))
  })
})
const readEnvelope = Schema.decodeUnknownOption(Envelope)

const byReason: Readonly<Record<string, DeliveryErrorCategory>> = {
  authError: "auth_expired",
  // The Google account has no YouTube channel: a person must create one, then reconnect.
  youtubeSignupRequired: "permission_missing",
  insufficientPermissions: "permission_missing",
  forbidden: "permission_missing",
  accessNotConfigured: "permission_missing",
  quotaExceeded: "rate_limited",
  rateLimitExceeded: "rate_limited",
  userRateLimitExceeded: "rate_limited",
  uploadLimitExceeded: "rate_limited",
  videoNotFound: "not_found",
  notFound: "not_found",
  backendError: "transient",
  internalError: "transient",
  invalidTitle: "content_rejected",
  invalidDescription: "content_rejected",
  invalidTags: "content_rejected",
  invalidCategoryId: "content_rejected",
  invalidPublishAt: "content_rejected",
  invalidVideoMetadata: "content_rejected",
  defaultLanguageNotSet: "content_rejected",
  mediaBodyRequired: "media_rejected",
  invalidFilename: "media_rejected",
  imageFormatUnsupported: "media_rejected",
  imageTooTall: "media_rejected",
  imageTooWide: "media_rejected",
  mediaTypeNotSupported: "media_rejected"
}

const hints: Partial<Record<DeliveryErrorCategory, string>> = {
  auth_expired: "Google refused the token even after a refresh; reconnect the account",
  permission_missing: "the connection lacks a YouTube permission (scope) or the account has no channel; reconnect with it granted"
}

/** A refusal as a DeliveryError: Google's reason as the code, its message kept, advice where there is some. */
export const classifyGoogle = (stage: Stage) => (reply: { readonly status: number; readonly body: unknown }): DeliveryError => {
  const envelope = Option.getOrUndefined(readEnvelope(reply.body))?.error
  const reason = envelope?.errors?.find((entry) => entry.reason !== undefined)?.reason ?? envelope?.status ?? `HTTP_${reply.status}`
  const message = envelope?.message ?? (typeof reply.body === "string" && reply.body !== "" ? reply.body.slice(0, 200) : `Google answered ${reply.status}`)
  const fallback = categoryOfStatus(reply.status)
  const category = byReason[reason] ??
    (stage !== "read" && fallback === "content_rejected" ? (stage === "thumbnail" ? "media_rejected" : "content_rejected") : fallback)
  const hint = hints[category]
  return { category, code: reason, message: hint === undefined ? `${message} (HTTP ${reply.status})` : `${message} (HTTP ${reply.status}; ${hint})` }
}

/** Sends the request; a status of 300 or more (but `expected`) is a PlatformRefusal read from Google's envelope. */
export const send = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  stage: Stage,
  expected: ReadonlyArray<number> = []
): Effect.Effect<{ readonly status: number; readonly headers: HttpClientResponse.HttpClientResponse["headers"]; readonly text: string }, PlatformCallError> =>
  Effect.gen(function*() {
    const response = yield* client.execute(request)
    if (response.status >= 300 && !expected.includes(response.status)) return yield* Effect.flip(refusal(response, classifyGoogle(stage)))
    return { status: response.status, headers: response.headers, text: yield* response.text }
  }).pipe(Effect.scoped)

/** Sends the request and reads its JSON body through `reply`. */
export const sendJson = <A, I>(client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: Stage, reply: Schema.Schema<A, I>) =>
  Effect.flatMap(send(client, request, stage), (answer) => decodeJson(reply, answer.text))

export const decodeJson = <A, I>(schema: Schema.Schema<A, I>, text: string) => Schema.decodeUnknown(Schema.parseJson(schema))(text)
