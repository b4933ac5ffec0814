import { HttpClientRequest } from "@effect/platform"
import { type Credentials, type Media, MediaStorage } from "@herald/core"
import { Clock, Duration, Effect, Option, type Schema } from "effect"
import { type PlatformCallError, type PlatformClient, PlatformRefusal } from "../kit/index.js"
import { exchange, withToken } from "./XCall.js"
import { AppendedSegment, MetadataSet, UploadedMedia } from "./XWire.js"

/** APPEND segments: 1 MiB of media each, as twitter-api-v2 and Postiz send them. */
const segmentBytes = 1024 * 1024

/** How long Herald waits for X to process one video or GIF before giving it up as transient. */
const processingBudget = Duration.minutes(10)

/** Waits between STATUS polls when X names none. */
const defaultCheckAfter = Duration.seconds(5)

type MediaCategory = "tweet_image" | "tweet_gif" | "tweet_video"

/** X's media category: GIFs and videos go through the chunked upload and processing; images are uploaded at once. */
export const mediaCategory = (media: Media): MediaCategory =>
  media.kind === "video" ? "tweet_video" : media.mime === "image/gif" ? "tweet_gif" : "tweet_image"

const rejected = (media: Media, code: string, message: string) =>
  new PlatformRefusal({ error: { category: "media_rejected", code, message: `${media.filename ?? media.id}: ${message}` }, retryAfterMs: null })

const base64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")

/**
 * Uploads one media item through X API v2's media endpoints and returns its media id, processed
 * and ready to attach: images in one POST /2/media/upload; GIFs and videos by
 * initialize → append (1 MiB segments) → finalize, then STATUS polls at the interval X names until
 * `succeeded`. Alt text goes on with POST /2/media/metadata (images and GIFs: X shows none on
 * video). Bodies are JSON with the bytes base64-encoded, which the OpenAPI offers beside multipart.
 */
export const uploadMedia = (client: PlatformClient, credentials: Credentials, media: Media) =>
  Effect.gen(function*() {
    const storage = yield* MediaStorage
    const bytes = yield* storage.read(media.storageKey)
    if (Option.isNone(bytes)) return yield* rejected(media, "media_missing", "the media's bytes are no longer stored")
    const category = mediaCategory(media)
    const send: Send = (request, schema) =>
      exchange(client.upload, request.pipe(withToken(credentials), HttpClientRequest.acceptJson), schema, { media: true })
    const id = category === "tweet_image"
      ? (yield* send(
        HttpClientRequest.post("/2/media/upload").pipe(HttpClientRequest.bodyUnsafeJson({ media: base64(bytes.value), media_category: category })),
        UploadedMedia
      )).data.id
      : yield* chunked(send, media, bytes.value, category)
    if (media.altText !== null && category !== "tweet_video") {
      yield* send(
        HttpClientRequest.post("/2/media/metadata").pipe(
          HttpClientRequest.bodyUnsafeJson({ id, metadata: { alt_text: { text: media.altText } } })
        ),
        MetadataSet
      )
    }
    return id
  })

type Send = <A, I>(request: HttpClientRequest.HttpClientRequest, schema: Schema.Schema<A, I>) => Effect.Effect<A, PlatformCallError>

const chunked = (send: Send, media: Media, bytes: Uint8Array, category: MediaCategory) =>
  Effect.gen(function*() {
    const { data: { id } } = yield* send(
      HttpClientRequest.post("/2/media/upload/initialize").pipe(
        HttpClientRequest.bodyUnsafeJson({ media_type: media.mime, total_bytes: bytes.byteLength, media_category: category })
      ),
      UploadedMedia
    )
    const path = `/2/media/upload/${encodeURIComponent(id)}`
    for (let index = 0, offset = 0; offset < bytes.byteLength; index++, offset += segmentBytes) {
      yield* Effect.asVoid(send(
        HttpClientRequest.post(`${path}/append`).pipe(
          HttpClientRequest.bodyUnsafeJson({ segment_index: index, media: base64(bytes.subarray(offset, offset + segmentBytes)) })
        ),
        AppendedSegment
      ))
    }
    let info = (yield* send(HttpClientRequest.post(`${path}/finalize`), UploadedMedia)).data.processing_info
    const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(processingBudget)
    while (info !== undefined && info.state !== "succeeded") {
      if (info.state === "failed") {
        return yield* rejected(media, "media_processing_failed", `X could not process it: ${info.error?.message ?? info.error?.name ?? "processing failed"}`)
      }
      if ((yield* Clock.currentTimeMillis) > deadline) {
        return yield* new PlatformRefusal({
          error: { category: "transient", code: "media_processing_slow", message: `${media.filename ?? media.id}: X was still processing it after ${Duration.format(processingBudget)}` },
          retryAfterMs: null
        })
      }
      yield* Effect.sleep(info.check_after_secs === undefined ? defaultCheckAfter : Duration.seconds(info.check_after_secs))
      info = (yield* send(
        HttpClientRequest.get("/2/media/upload").pipe(HttpClientRequest.setUrlParams({ command: "STATUS", media_id: id })),
        UploadedMedia
      )).data.processing_info
    }
    return id
  })
