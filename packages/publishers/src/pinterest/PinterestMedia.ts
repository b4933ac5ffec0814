/**
 * A pin's media_source (PinCreate.media_source of API v5): images as their bytes (image_base64,
 * multiple_image_base64 for a carousel of 2 to 5), a video through Pinterest's media upload:
 * registered (POST /v5/media), its bytes posted to the upload URL Pinterest hands back with the
 * form fields it names, then polled (GET /v5/media/{id}) until Pinterest has processed it.
 */
import { HttpClientRequest } from "@effect/platform"
import { type Media, MediaStorage } from "@herald/core"
import { Duration, Effect, Option, Schedule, Schema } from "effect"
import type { PlatformClient, PlatformRefusal } from "../kit/index.js"
import { api, refusedWith, send, sendJson } from "./PinterestApi.js"
import type { StoredToken } from "./PinterestToken.js"

const Registered = Schema.Struct({
  media_id: Schema.String,
  upload_url: Schema.String,
  upload_parameters: Schema.Record({ key: Schema.String, value: Schema.String })
})
const MediaStatus = Schema.Struct({ media_id: Schema.String, status: Schema.optional(Schema.String) })

/** Pinterest has the upload but has not finished with it. */
class StillProcessing extends Schema.TaggedError<StillProcessing>()("StillProcessing", { status: Schema.String }) {}

/** How long Herald waits for Pinterest to process a video before giving the attempt up (it resumes on the same upload). */
const processingWait = Duration.minutes(3)

/** The image types image_base64 takes (Pinterest's ContentType). */
const base64Types = new Set(["image/jpeg", "image/png"])

const mediaRefused = (code: string, message: string) => refusedWith({ category: "media_rejected", code, message })

export const makePinMedia = (client: PlatformClient) => {
  const bytesOf = (media: Media) =>
    Effect.flatMap(
      Effect.flatMap(MediaStorage, (storage) => storage.read(media.storageKey)),
      Option.match({
        onNone: () => Effect.fail(mediaRefused("media_missing", `the bytes of media ${media.id} are no longer stored`)),
        onSome: Effect.succeed
      })
    )

  const image = (media: Media) =>
    Effect.gen(function*() {
      if (!base64Types.has(media.mime)) {
        return yield* mediaRefused("unsupported_image_type", `Pinterest takes image bytes as JPEG or PNG; media ${media.id} is ${media.mime}`)
      }
      return { content_type: media.mime, data: Buffer.from(yield* bytesOf(media)).toString("base64") }
    })

  /** Waits until Pinterest has processed the upload: succeeded, or refused as failed. */
  const processed = (token: StoredToken, mediaId: string) =>
    sendJson(client.read, api("GET", `media/${encodeURIComponent(mediaId)}`, token.access_token), "media", MediaStatus).pipe(
      Effect.flatMap((seen): Effect.Effect<void, PlatformRefusal | StillProcessing> =>
        seen.status === "succeeded"
          ? Effect.void
          : seen.status === "failed"
          ? Effect.fail(mediaRefused("media_failed", `Pinterest could not process the video (media ${mediaId}); the file may be corrupt or in a format it does not take`))
          : Effect.fail(new StillProcessing({ status: seen.status ?? "unknown" }))
      ),
      Effect.retry({
        schedule: Schedule.exponential(Duration.millis(250)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(5))), Schedule.upTo(processingWait)),
        while: (failure) => failure._tag === "StillProcessing"
      }),
      Effect.catchTag("StillProcessing", (still) =>
        Effect.fail(refusedWith({
          category: "transient",
          code: "media_processing",
          message: `Pinterest was still processing media ${mediaId} (${still.status}) after ${Duration.format(processingWait)}`
        })))
    )

  /** Registers a video with Pinterest and posts its bytes; answers Pinterest's media id. */
  const uploadVideo = (token: StoredToken, media: Media) =>
    Effect.gen(function*() {
      const bytes = yield* bytesOf(media)
      const registered = yield* sendJson(
        client.publish,
        api("POST", "media", token.access_token).pipe(HttpClientRequest.bodyUnsafeJson({ media_type: "video" })),
        "media",
        Registered
      )
      const form = new FormData()
      for (const [name, value] of Object.entries(registered.upload_parameters)) form.append(name, value)
      // The file comes last: the upload URL is a presigned S3 form, which reads fields up to the file.
      form.append("file", new Blob([bytes], { type: media.mime }), media.filename ?? "video")
      yield* send(client.upload, HttpClientRequest.post(registered.upload_url).pipe(HttpClientRequest.bodyFormData(form)), "media")
      return registered.media_id
    })

  return { image, processed, uploadVideo }
}
