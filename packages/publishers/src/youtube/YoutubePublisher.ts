/**
 * Publishing a video to YouTube: the quota spent first (refused early when the day cannot afford
 * the upload), the upload session opened and recorded (PublishCheckpoints, by delivery) before a
 * byte is sent, the bytes sent through the resumable upload protocol, then the thumbnail
 * (thumbnails.set, a frame taken at thumbnail_timestamp_ms). An attempt cut short resumes on the
 * recorded session: its probe says whether the video exists (reconcile) or where to go on from,
 * so an unknown outcome never uploads the video twice.
 */
import { HttpClientRequest } from "@effect/platform"
import {
  AlreadyGone,
  isShort,
  type Media,
  MediaStorage,
  type Published,
  type Publisher,
  PublishCheckpoints,
  type PublishFailed,
  type PublishRequest,
  type SocialAccount,
  VideoFrames,
  type YoutubeConfiguration,
  youtubeQuota,
  youtubeTitle
} from "@herald/core"
import { type Context, DateTime, Effect, Option, Schema } from "effect"
import { asPublish, type PlatformClient } from "../kit/index.js"
import { send } from "./GoogleApi.js"
import { afterQuotaExceeded, quotaDay, type QuotaSettings, spend } from "./Quota.js"
import { makeResumableUpload, refusedAs, type Video } from "./ResumableUpload.js"
import { type Needs, withToken } from "./YoutubeToken.js"

type Configuration = typeof YoutubeConfiguration.Type

/**
 * What is recorded of a delivery's upload: the quota day its units were spent on (so a retry that
 * day does not spend them again), then the session's URI and the size it was opened for.
 */
const Recorded = Schema.parseJson(Schema.Union(
  Schema.Struct({ phase: Schema.Literal("spent"), day: Schema.String }),
  Schema.Struct({ phase: Schema.Literal("session"), session: Schema.String, total: Schema.Number })
))
type Recorded = typeof Recorded.Type

export const recordedUpload = (deliveryId: string): Effect.Effect<Option.Option<Recorded>, never, PublishCheckpoints> =>
  Effect.map(Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.get(deliveryId)), Option.flatMap(Schema.decodeOption(Recorded)))

const record = (deliveryId: string, recorded: Recorded) =>
  Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.put(deliveryId, Schema.encodeSync(Recorded)(recorded)))

const forget = (deliveryId: string) => Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.clear(deliveryId))

/** The videos resource Herald sends (videos.insert), and the parts it names. */
export const videoResource = (text: string, configuration: Configuration | undefined) => {
  const resource = {
    snippet: { title: youtubeTitle(text), description: text, categoryId: configuration?.category_id ?? "22" },
    status: {
      privacyStatus: configuration?.privacy_status ?? "public",
      ...(configuration?.contains_synthetic_media === undefined ? {} : { containsSyntheticMedia: configuration.contains_synthetic_media })
    },
    ...(configuration?.has_paid_product_placement === undefined
      ? {}
      : { paidProductPlacementDetails: { hasPaidProductPlacement: configuration.has_paid_product_placement } })
  }
  return { resource, parts: Object.keys(resource).join(",") }
}

export const videoUrl = (id: string, short: boolean) =>
  short ? `https://www.youtube.com/shorts/${id}` : `https://www.youtube.com/watch?v=${id}`

export const youtubePublisher = (
  client: PlatformClient,
  settings: { readonly apiBaseUrl: string; readonly chunkBytes: number; readonly quota: QuotaSettings },
  context: Context.Context<Needs>
): Publisher => {
  const uploads = makeResumableUpload(client, settings.apiBaseUrl, settings.chunkBytes)
  const metered = afterQuotaExceeded(settings.quota)

  const videoOf = (request: PublishRequest) =>
    Effect.gen(function*() {
      const media = request.media.find((item) => item.kind === "video")
      if (media === undefined) return yield* refusedAs("media_rejected", "video_required", "YouTube publishes videos only and this delivery carries none")
      const stored = yield* Effect.flatMap(MediaStorage, (storage) => storage.read(media.storageKey))
      if (Option.isNone(stored)) return yield* refusedAs("media_rejected", "media_missing", `the bytes of media ${media.id} are no longer stored`)
      return { media, bytes: stored.value }
    })

  const unitsFor = (media: Media) => settings.quota.uploadUnits + (media.thumbnailTimestampMs === null ? 0 : youtubeQuota.thumbnail)

  /** Sets the thumbnail from the chosen frame; what went wrong, if anything, for the receipt's note. */
  const thumbnail = (token: string, videoId: string, media: Media, bytes: Uint8Array) =>
    Effect.gen(function*() {
      if (media.thumbnailTimestampMs === null) return null
      const frame = yield* Effect.flatMap(VideoFrames, (frames) => frames.frameAt(bytes, media.thumbnailTimestampMs!))
      yield* send(
        client.upload,
        HttpClientRequest.post(`/upload/youtube/v3/thumbnails/set?videoId=${encodeURIComponent(videoId)}&uploadType=media`).pipe(
          HttpClientRequest.bearerToken(token),
          HttpClientRequest.bodyUint8Array(frame, "image/jpeg")
        ),
        "thumbnail"
      )
      return null
    }).pipe(
      Effect.catchAll((failure) =>
        Effect.succeed(`the thumbnail at ${media.thumbnailTimestampMs} ms was not set (${
          failure._tag === "PlatformRefusal" ? failure.error.message : failure._tag === "FrameUnavailable" ? failure.reason : failure.message
        })`)
      )
    )

  /** The video exists: refused by YouTube at once, or finished with its thumbnail and receipt. */
  const finish = (token: string, request: PublishRequest, media: Media, bytes: Uint8Array, video: Video) =>
    Effect.gen(function*() {
      const state = video.status?.uploadStatus
      if (state === "rejected" || state === "failed") {
        yield* forget(request.marker)
        return yield* refusedAs(
          "media_rejected",
          video.status?.rejectionReason ?? video.status?.failureReason ?? state,
          `YouTube ${state} video ${video.id}: ${video.status?.rejectionReason ?? video.status?.failureReason ?? "no reason given"}`
        )
      }
      const left = yield* thumbnail(token, video.id, media, bytes)
      yield* forget(request.marker)
      const short = isShort(media)
      return {
        platformPostId: video.id,
        url: videoUrl(video.id, short),
        note: left !== null
          ? { text: left, kind: null }
          : short
          ? { text: "published as a YouTube Short (a vertical or square video of 3 minutes or less)", kind: "info" }
          : null
      } satisfies Published
    })

  /** Opens a session (the quota spent once per delivery and day) and records it before any byte is sent. */
  const open = (token: string, request: PublishRequest, media: Media, bytes: Uint8Array, spentOn: string | undefined) =>
    Effect.gen(function*() {
      const { day } = quotaDay(yield* DateTime.now)
      if (spentOn !== day) {
        yield* spend(settings.quota, unitsFor(media), "an upload")
        yield* record(request.marker, { phase: "spent", day })
      }
      const { parts, resource } = videoResource(request.text ?? "", request.configuration as Configuration | undefined)
      const session = yield* uploads.start(token, parts, resource, bytes.byteLength, media.mime).pipe(
        metered,
        // Refused (the metadata, the scope, a limit): nothing to resume; a later attempt spends again.
        // Only a passing failure keeps what was spent, for the retry that follows it shortly.
        Effect.tapError((failure) => failure._tag === "PlatformRefusal" && failure.error.category !== "transient" ? forget(request.marker) : Effect.void)
      )
      yield* record(request.marker, { phase: "session", session, total: bytes.byteLength })
      return session
    })

  const publishOnce = (token: string, request: PublishRequest) =>
    Effect.gen(function*() {
      const { bytes, media } = yield* videoOf(request)
      const recorded = Option.getOrUndefined(yield* recordedUpload(request.marker))
      let session: string | undefined
      let offset = 0
      if (recorded?.phase === "session" && recorded.total === bytes.byteLength) {
        const state = yield* uploads.probe(token, recorded.session, recorded.total).pipe(
          Effect.catchTag("SessionGone", () => Effect.as(forget(request.marker), undefined))
        )
        if (state?._tag === "Done") return yield* finish(token, request, media, bytes, state.video)
        if (state !== undefined) {
          session = recorded.session
          offset = state.offset
        }
      }
      session ??= yield* open(token, request, media, bytes, recorded?.phase === "spent" ? recorded.day : undefined)
      const video = yield* uploads.upload(token, session, bytes, offset).pipe(
        Effect.catchTag("SessionGone", (gone) =>
          Effect.zipRight(forget(request.marker), refusedAs("transient", "upload_session_gone", `${gone.detail}; the next attempt uploads the video again`)))
      )
      return yield* finish(token, request, media, bytes, video)
    })

  const publish = (request: PublishRequest) =>
    withToken(request.account, (token) => publishOnce(token.accessToken, request)).pipe(asPublish, Effect.provide(context))

  /**
   * The delivery's video, if YouTube holds it: only a recorded session can have made one (no
   * byte is sent before it is recorded), and its probe says whether it did. Found, the video is
   * finished as a publish would (thumbnail, receipt).
   */
  const reconcile = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      Effect.gen(function*() {
        const recorded = Option.getOrUndefined(yield* recordedUpload(request.marker))
        if (recorded?.phase !== "session") return Option.none<Published>()
        const state = yield* uploads.probe(token.accessToken, recorded.session, recorded.total).pipe(
          Effect.catchTag("SessionGone", () => Effect.as(forget(request.marker), undefined))
        )
        if (state?._tag !== "Done") return Option.none<Published>()
        const { bytes, media } = yield* videoOf(request)
        return Option.some(yield* finish(token.accessToken, request, media, bytes, state.video))
      })).pipe(asPublish, Effect.provide(context))

  const takedown = (account: SocialAccount, platformPostId: string) =>
    withToken(account, (token) =>
      Effect.zipRight(
        spend(settings.quota, youtubeQuota.delete, "a delete"),
        send(
          client.publish,
          HttpClientRequest.del(`/youtube/v3/videos?id=${encodeURIComponent(platformPostId)}`).pipe(HttpClientRequest.bearerToken(token.accessToken)),
          "read"
        ).pipe(metered)
      )).pipe(
        asPublish,
        Effect.asVoid,
        Effect.catchIf(
          (failure): failure is PublishFailed => failure._tag === "PublishFailed" && failure.error.category === "not_found",
          () => Effect.fail(new AlreadyGone({ detail: `YouTube holds no video ${platformPostId}` }))
        ),
        Effect.provide(context)
      )

  return {
    publish,
    reconcile,
    takedown
  }
}
