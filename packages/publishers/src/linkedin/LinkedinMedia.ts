/**
 * Media on LinkedIn: each file is registered with its API (initializeUpload), its bytes PUT to
 * the URLs LinkedIn hands back, and the post names it by URN once LinkedIn has it AVAILABLE.
 * - images (Images API): one PUT;
 * - videos (Videos API): one PUT per part LinkedIn asks for (its byte ranges), each part's ETag
 *   collected for finalizeUpload;
 * - documents (Documents API, PDF): one PUT.
 */
import { HttpClientRequest } from "@effect/platform"
import { type Media, MediaStorage } from "@herald/core"
import { Duration, Effect, Option, Schedule, Schema } from "effect"
import { type PlatformClient, PlatformRefusal } from "../kit/index.js"
import { refusedWith, rest, send, sendJson } from "./Rest.js"
import type { Token } from "./Token.js"

/** An image's or a document's upload: one URL, and the URN under the kind's own key. */
const fileUpload = (key: "image" | "document") =>
  Schema.Struct({ value: Schema.Struct({ uploadUrl: Schema.String, urn: Schema.propertySignature(Schema.String).pipe(Schema.fromKey(key)) }) })
const fileUploads = { images: fileUpload("image"), documents: fileUpload("document") } as const
const VideoUpload = Schema.Struct({
  value: Schema.Struct({
    video: Schema.String,
    uploadToken: Schema.String,
    uploadInstructions: Schema.NonEmptyArray(Schema.Struct({ uploadUrl: Schema.String, firstByte: Schema.Number, lastByte: Schema.Number }))
  })
})
const MediaStatus = Schema.Struct({
  status: Schema.String,
  processingFailureReason: Schema.optional(Schema.String)
})

/** LinkedIn has the upload but has not finished with it. */
class StillProcessing extends Schema.TaggedError<StillProcessing>()("StillProcessing", { status: Schema.String }) {}

/** LinkedIn's URN for each uploaded item, in the post's order. */
export interface Uploaded {
  readonly media: Media
  readonly urn: string
}

type Kind = "images" | "videos" | "documents"

/** How long Herald waits for LinkedIn to finish processing an upload before giving the attempt up. */
const processingWait = Duration.minutes(2)

const mediaRefused = (code: string, message: string) => refusedWith({ category: "media_rejected", code, message })

export const makeMediaUploads = (client: PlatformClient) => {
  const initialize = <A, I>(kind: Kind, token: Token, request: Record<string, unknown>, reply: Schema.Schema<A, I>) =>
    sendJson(
      client.read,
      rest("POST", `/rest/${kind}?action=initializeUpload`, token.accessToken).pipe(
        HttpClientRequest.bodyUnsafeJson({ initializeUploadRequest: { owner: token.author, ...request } })
      ),
      "media",
      reply
    )

  const put = (url: string, token: Token, bytes: Uint8Array, mime: string) =>
    send(
      client.upload,
      HttpClientRequest.put(url).pipe(HttpClientRequest.bearerToken(token.accessToken), HttpClientRequest.bodyUint8Array(bytes, mime)),
      "media"
    )

  /**
   * Waits until LinkedIn has the upload AVAILABLE. Member tokens may not read an image's or a
   * document's status (LinkedIn answers 403): then the post is created without waiting, and a
   * refusal of it says whether the file was not ready.
   */
  const available = (kind: Kind, token: Token, urn: string) =>
    sendJson(client.read, rest("GET", `/rest/${kind}/${encodeURIComponent(urn)}`, token.accessToken), "media", MediaStatus).pipe(
      Effect.flatMap((state): Effect.Effect<void, PlatformRefusal | StillProcessing> =>
        state.status === "AVAILABLE"
          ? Effect.void
          : state.status === "PROCESSING_FAILED"
          ? Effect.fail(mediaRefused("PROCESSING_FAILED", `LinkedIn could not process ${urn}: ${state.processingFailureReason ?? "no reason given"}`))
          : Effect.fail(new StillProcessing({ status: state.status }))
      ),
      Effect.retry({
        schedule: Schedule.exponential(Duration.millis(200)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(5))), Schedule.upTo(processingWait)),
        while: (failure) => failure._tag === "StillProcessing"
      }),
      Effect.catchTags({
        StillProcessing: (still) =>
          Effect.fail(refusedWith({
            category: "transient",
            code: "media_processing",
            message: `LinkedIn was still processing ${urn} (${still.status}) after ${Duration.format(processingWait)}`
          })),
        PlatformRefusal: (refused) => kind !== "videos" && refused.error.category === "permission_missing" ? Effect.void : Effect.fail(refused)
      })
    )

  /** An image or a document: one PUT of the whole file. */
  const file = (kind: "images" | "documents", token: Token, media: Media, bytes: Uint8Array) =>
    Effect.gen(function*() {
      const { value } = yield* initialize(kind, token, {}, fileUploads[kind])
      yield* put(value.uploadUrl, token, bytes, media.mime)
      yield* available(kind, token, value.urn)
      return value.urn
    })

  const video = (token: Token, bytes: Uint8Array) =>
    Effect.gen(function*() {
      const { value } = yield* initialize(
        "videos",
        token,
        { fileSizeBytes: bytes.byteLength, uploadCaptions: false, uploadThumbnail: false },
        VideoUpload
      )
      const etags = yield* Effect.forEach(value.uploadInstructions, (part) =>
        Effect.flatMap(put(part.uploadUrl, token, bytes.subarray(part.firstByte, part.lastByte + 1), "application/octet-stream"), (answer) =>
          answer.headers["etag"] === undefined
            ? Effect.fail(mediaRefused("no_etag", `LinkedIn's answer to a part of ${value.video} carried no ETag`))
            : Effect.succeed(answer.headers["etag"])))
      yield* send(
        client.upload,
        rest("POST", "/rest/videos?action=finalizeUpload", token.accessToken).pipe(
          HttpClientRequest.bodyUnsafeJson({
            finalizeUploadRequest: { video: value.video, uploadToken: value.uploadToken, uploadedPartIds: etags }
          })
        ),
        "media"
      )
      yield* available("videos", token, value.video)
      return value.video
    })

  /** Uploads one item and answers its URN once LinkedIn has it. */
  const upload = (token: Token, media: Media) =>
    Effect.gen(function*() {
      const stored = yield* (yield* MediaStorage).read(media.storageKey)
      if (Option.isNone(stored)) {
        return yield* mediaRefused("media_missing", `the bytes of media ${media.id} are no longer stored`)
      }
      const bytes = stored.value
      const urn = media.kind === "video" ? yield* video(token, bytes) : yield* file(media.kind === "image" ? "images" : "documents", token, media, bytes)
      return { media, urn } satisfies Uploaded
    })

  return { upload }
}
