/**
 * Direct posts to TikTok (Content Posting API): creator_info asked first (TikTok requires it
 * before every direct post; it also says whether the creator may post now), the audience and the
 * video's length held to it, then the init (a video by FILE_UPLOAD chunks or PULL_FROM_URL, or
 * photos by PULL_FROM_URL), the publish_id recorded before any upload or wait, and the status
 * read until TikTok has published it. TikTok's API deletes nothing: the publisher has no takedown.
 */
import {
  type Media,
  MediaStorage,
  OutcomeUnknown,
  type Published,
  type Publisher,
  PublishFailed,
  type PublishRequest
} from "@herald/core"
import { Clock, type Context, Effect, Option, Schema } from "effect"
import { isRetryable, type PlatformCallError, type PlatformClient, PlatformRefusal, publicMediaUrl, publishFailure, publishFailureOfRead } from "../kit/index.js"
import { api, call } from "./TiktokApi.js"
import { type AppStanding, type CreatorInfo, creatorInfo, privacyLevels, unauditedReason } from "./TiktokCreator.js"
import { failedPublish, network } from "./TiktokErrors.js"
import { chunkPlan, configurationOf, photoInit, privacyOf, profileUrl, videoInit, videoUrl, type VideoSource } from "./TiktokPosts.js"
import { awaitPublished, fetchStatus, forget, postIdOf, record, recorded, type Recorded, type Status } from "./TiktokStatus.js"
import { type Needs, type StoredToken, withToken } from "./TiktokToken.js"
import { uploadChunks, uploadGone } from "./TiktokUpload.js"

/** How this Herald sends videos: its bytes in chunks, or a URL TikTok downloads (HERALD_TIKTOK_VIDEO_SOURCE). */
export type VideoTransfer = "file_upload" | "pull_from_url"

export interface TiktokSettings extends AppStanding {
  readonly videoTransfer: VideoTransfer
}

const Initiated = Schema.Struct({ publish_id: Schema.String, upload_url: Schema.optional(Schema.String) })
export const TiktokVideo = Schema.Struct({
  id: Schema.String,
  title: Schema.optional(Schema.String),
  video_description: Schema.optional(Schema.String),
  create_time: Schema.optional(Schema.Number),
  share_url: Schema.optional(Schema.String)
})
const VideoList = Schema.Struct({ videos: Schema.optionalWith(Schema.Array(TiktokVideo), { default: () => [] }) })

/** How long an upload URL lasts (Media Transfer Guide): past it a cut-short upload cannot be finished. */
const uploadUrlLifetimeMs = 60 * 60 * 1000

const refused = (category: "content_rejected" | "media_rejected" | "permission_missing", code: string, message: string) =>
  new PlatformRefusal({ error: { category, code, message }, retryAfterMs: null })

const mimeOf = (media: Media) => media.mime === "video/quicktime" || media.mime === "video/webm" ? media.mime : "video/mp4"

export const tiktokPublisher = (client: PlatformClient, settings: TiktokSettings, context: Context.Context<Needs>): Publisher => {
  const urlOf = (media: Media) => publicMediaUrl(network, media, media.kind === "image" ? "photos" : "this video")

  const bytesOf = (media: Media) =>
    Effect.flatMap(
      Effect.flatMap(MediaStorage, (storage) => storage.read(media.storageKey)),
      Option.match({
        onNone: () => Effect.fail(refused("media_rejected", "media_missing", `the bytes of media ${media.id} are no longer stored`)),
        onSome: Effect.succeed
      })
    )

  /** What creator_info forbids, refused before TikTok is asked to post (validation holds posts to the same at create). */
  const preflight = (request: PublishRequest, info: CreatorInfo, video: Media | undefined) =>
    Effect.gen(function*() {
      const configuration = configurationOf(request)
      const privacy = privacyOf(configuration)
      if (!privacyLevels(info, settings).includes(privacy)) {
        return yield* settings.audited || !info.privacy_level_options.includes(privacy)
          ? refused("content_rejected", "privacy_level_option_mismatch", `${network} offers @${info.creator_username} the privacy levels ${info.privacy_level_options.join(", ")}, not ${privacy}`)
          : refused("permission_missing", "app_unaudited", `${privacy} is not possible: ${unauditedReason}`)
      }
      if (configuration.is_brand_content === true && privacy === "SELF_ONLY") {
        return yield* refused("content_rejected", "branded_content_private", `${network} does not let branded content be private (SELF_ONLY)`)
      }
      const seconds = video?.durationSeconds ?? null
      if (seconds !== null && seconds > info.max_video_post_duration_sec) {
        return yield* refused(
          "media_rejected",
          "duration_over_creator_limit",
          `${network} lets @${info.creator_username} post videos of up to ${info.max_video_post_duration_sec} seconds; this one runs ${Math.ceil(seconds)}`
        )
      }
    })

  const init = (token: StoredToken, path: string, body: unknown) =>
    call(client.publish, api("POST", path, token.access_token, body), Initiated)

  /** Sends the chunks TikTok does not hold yet and records that the file is whole. */
  const upload = (request: PublishRequest, video: Media, publishing: Extract<Recorded, { _tag: "publishing" }>, uploadedBytes: number) =>
    Effect.gen(function*() {
      const bytes = yield* bytesOf(video)
      const plan = chunkPlan(bytes.length)
      yield* uploadChunks(client.upload, publishing.upload!.url, bytes, plan, mimeOf(video), Math.min(Math.floor(uploadedBytes / plan.chunk_size), plan.total_chunk_count - 1))
      yield* record(request.marker, { ...publishing, upload: { url: publishing.upload!.url, uploaded: true } })
    }).pipe(Effect.tapError((failure) => uploadGone(failure) || failure._tag === "PlatformRefusal" && failure.error.category === "media_rejected" ? forget(request.marker) : Effect.void))

  const publishedOf = (token: StoredToken, publishId: string, status: Status): Published => {
    const postId = postIdOf(status)
    return postId === null
      ? {
        platformPostId: publishId,
        url: profileUrl(token.username),
        note: {
          kind: "info",
          text: `${network} links a post once it is public and past moderation; this one (publish ${publishId}) had no link yet, so the receipt links the profile`
        }
      }
      : { platformPostId: postId, url: videoUrl(token.username, postId), note: null }
  }

  /** Waits on the recorded publish until TikTok has published it; FAILED forgets it (the next attempt starts anew). */
  const finish = (token: StoredToken, request: PublishRequest, publishId: string) =>
    Effect.gen(function*() {
      const status = yield* awaitPublished((id) => fetchStatus(client.read, token.access_token, id), publishId)
      yield* forget(request.marker)
      // Failed as core's error already: a PlatformRefusal of auth_removed would have `authorized` refresh and post again.
      if (status.status === "FAILED") {
        const error = failedPublish(publishId, status.fail_reason)
        return yield* new PublishFailed({ error, transient: isRetryable(error.category), retryAfterMs: null })
      }
      return publishedOf(token, publishId, status)
    })

  const start = (token: StoredToken, request: PublishRequest) =>
    Effect.gen(function*() {
      const video = request.media.find((item) => item.kind === "video")
      if (request.media.length === 0) return yield* refused("media_rejected", "media_required", `${network} publishes videos and photos, not text alone`)
      const info = yield* creatorInfo(client.read, token.access_token)
      yield* preflight(request, info, video)
      const at = yield* Clock.currentTimeMillis
      let publishing: Extract<Recorded, { _tag: "publishing" }>
      if (video === undefined) {
        const urls = yield* Effect.forEach(request.media, urlOf)
        yield* record(request.marker, { _tag: "init", at })
        const initiated = yield* init(token, "/v2/post/publish/content/init/", photoInit(request, urls, info)).pipe(Effect.tapError(forgetIfRefused(request)))
        publishing = { _tag: "publishing", at, publishId: initiated.publish_id, upload: null }
        yield* record(request.marker, publishing)
      } else {
        const from: VideoSource = settings.videoTransfer === "pull_from_url"
          ? { source: "PULL_FROM_URL", url: yield* urlOf(video) }
          : { source: "FILE_UPLOAD", plan: chunkPlan((yield* bytesOf(video)).length) }
        yield* record(request.marker, { _tag: "init", at })
        const initiated = yield* init(token, "/v2/post/publish/video/init/", videoInit(request, video, info, from)).pipe(Effect.tapError(forgetIfRefused(request)))
        if (from.source === "FILE_UPLOAD" && initiated.upload_url === undefined) {
          return yield* Effect.fail(new OutcomeUnknown({ detail: `${network} started publish ${initiated.publish_id} without an upload URL` }))
        }
        publishing = { _tag: "publishing", at, publishId: initiated.publish_id, upload: from.source === "FILE_UPLOAD" ? { url: initiated.upload_url!, uploaded: false } : null }
        yield* record(request.marker, publishing)
        if (publishing.upload !== null) yield* upload(request, video, publishing, 0)
      }
      return yield* finish(token, request, publishing.publishId)
    })

  /** An init TikTok refused posted nothing: its record goes (a lost answer keeps it, to be looked up). */
  const forgetIfRefused = (request: PublishRequest) => (failure: PlatformCallError) =>
    failure._tag === "PlatformRefusal" ? forget(request.marker) : Effect.void

  /** An attempt after one cut short: the upload finished where TikTok says it stopped, then the wait. */
  const resume = (token: StoredToken, request: PublishRequest, publishing: Extract<Recorded, { _tag: "publishing" }>) =>
    Effect.gen(function*() {
      const video = request.media.find((item) => item.kind === "video")
      if (publishing.upload !== null && !publishing.upload.uploaded && video !== undefined) {
        const status = yield* fetchStatus(client.read, token.access_token, publishing.publishId)
        if (status.status === "PROCESSING_UPLOAD") {
          if ((yield* Clock.currentTimeMillis) - publishing.at >= uploadUrlLifetimeMs) {
            // The upload URL is gone, so this publish can never complete: nothing was posted; start anew.
            yield* forget(request.marker)
            return yield* start(token, request)
          }
          yield* upload(request, video, publishing, status.uploaded_bytes ?? 0)
        }
      }
      return yield* finish(token, request, publishing.publishId)
    })

  const publish = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      Effect.flatMap(recorded(request.marker), (earlier) =>
        Option.isSome(earlier) && earlier.value._tag === "publishing" ? resume(token, request, earlier.value) : start(token, request))).pipe(
      Effect.mapError((error) =>
        error._tag === "OutcomeUnknown" || error._tag === "PublishFailed"
          ? error
          : error._tag === "PlatformCallFailed"
          ? publishFailureOfRead(error)
          : publishFailure(error)
      ),
      Effect.provide(context)
    )

  /** The creator's recent public videos, for one carrying the delivery's text (an init whose answer was lost). */
  const recentWithText = (token: StoredToken, request: PublishRequest, since: number) =>
    Effect.map(
      call(client.read, api("POST", "/v2/video/list/?fields=id,title,video_description,create_time,share_url", token.access_token, { max_count: 20 }), VideoList),
      (list) =>
        Option.fromNullable(list.videos.find((video) =>
          (video.create_time === undefined || video.create_time * 1000 >= since - 60_000) &&
          request.text !== null && (video.video_description === request.text || video.title === request.text)
        ))
    )

  /**
   * The delivery's post, if TikTok holds it: the recorded publish's status says (complete: found;
   * otherwise the next attempt resumes on it); an init whose answer was lost is looked for among
   * the creator's public videos, and when not found there the outcome stays unknown (TikTok lists
   * no private post, and a second init could post twice).
   */
  const reconcile = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      Effect.gen(function*() {
        const earlier = yield* recorded(request.marker)
        if (Option.isNone(earlier)) return Option.none<Published>()
        const record = earlier.value
        if (record._tag === "publishing") {
          const status = yield* fetchStatus(client.read, token.access_token, record.publishId)
          if (status.status !== "PUBLISH_COMPLETE") return Option.none<Published>()
          yield* forget(request.marker)
          return Option.some(publishedOf(token, record.publishId, status))
        }
        const found = yield* recentWithText(token, request, record.at)
        if (Option.isNone(found)) {
          return yield* new OutcomeUnknown({
            detail: `${network}'s answer to the post's init was lost, and its public videos hold none with this text; TikTok lists no private post, so Herald cannot tell whether it went out`
          })
        }
        yield* forget(request.marker)
        return Option.some<Published>({ platformPostId: found.value.id, url: found.value.share_url ?? videoUrl(token.username, found.value.id), note: null })
      })).pipe(
      Effect.mapError((error) =>
        error._tag === "OutcomeUnknown" ? error : error._tag === "PlatformCallFailed" ? publishFailureOfRead(error) : publishFailure(error)
      ),
      Effect.provide(context)
    )

  // No takedown: TikTok's API deletes no posts.
  return { publish, reconcile }
}
