/**
 * Publishing to a Facebook Page with the Page's token (developers.facebook.com/docs/pages-api/posts,
 * video-api/guides/reels-publishing, video-api/page-stories-api): by placement and media,
 *
 * - timeline, no media: POST /{page}/feed (message, link);
 * - timeline, one photo: POST /{page}/photos with its bytes (source), published;
 * - timeline, photos: each POST /{page}/photos unpublished, then POST /{page}/feed with attached_media;
 * - timeline, a video: the resumable upload of POST /{page}/videos (start, transfer by chunks, finish with the description);
 * - reels: POST /{page}/video_reels start, the bytes to the upload URL Facebook hands out (rupload), finish PUBLISHED;
 * - stories: a video as reels' upload on /video_stories, a photo unpublished then POST /{page}/photo_stories.
 *
 * Photos and a video together cannot go through an app: core's splitMedia sends the video and
 * the receipt's note (kind null) names what was left behind.
 */
import { HttpClientRequest } from "@effect/platform"
import {
  type FacebookConfiguration,
  type Media,
  MediaStorage,
  placementOf,
  type Published,
  type Publisher,
  type PublishRequest,
  type SocialAccount,
  splitMedia
} from "@herald/core"
import { Clock, type Context, Effect, Option, Schema } from "effect"
import { asPublish, goneWhenNotFound, type PlatformClient, PlatformRefusal } from "../kit/index.js"
import { graph, network, send, sendJson } from "./FacebookApi.js"
import { type Needs, type StoredToken, withToken } from "./FacebookToken.js"

const Created = Schema.Struct({ id: Schema.String })
const PhotoCreated = Schema.Struct({ id: Schema.String, post_id: Schema.optional(Schema.String) })
const Success = Schema.Struct({ success: Schema.Boolean })
const StoryPublished = Schema.Struct({ success: Schema.Boolean, post_id: Schema.String })
const UploadStarted = Schema.Struct({ video_id: Schema.String, upload_url: Schema.String })
const SessionStarted = Schema.Struct({ video_id: Schema.String, upload_session_id: Schema.String, start_offset: Schema.String, end_offset: Schema.String })
const Offsets = Schema.Struct({ start_offset: Schema.String, end_offset: Schema.String })
const Permalink = Schema.Struct({ permalink_url: Schema.optional(Schema.String) })
const Feed = Schema.Struct({
  data: Schema.Array(Schema.Struct({ id: Schema.String, message: Schema.optional(Schema.String), created_time: Schema.optional(Schema.String), permalink_url: Schema.optional(Schema.String) }))
})

type Configuration = typeof FacebookConfiguration.Type

/** How far back reconcile looks: past the dispatcher's 24 hours of trying to confirm an outcome. */
const reconcileWindowMs = 25 * 60 * 60 * 1000

const refused = (category: "media_rejected" | "content_rejected", code: string, message: string) =>
  new PlatformRefusal({ error: { category, code, message }, retryAfterMs: null })

const form = (fields: Record<string, string>, file?: { readonly name: string; readonly bytes: Uint8Array; readonly mime: string }) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.append(name, value)
  if (file !== undefined) data.append(file.name, new Blob([file.bytes], { type: file.mime }), file.name)
  return data
}

export const facebookPublisher = (client: PlatformClient, context: Context.Context<Needs>): Publisher => {
  const post = (path: string, token: StoredToken, fields: Record<string, string>) =>
    graph("POST", path, token.access_token).pipe(HttpClientRequest.bodyUrlParams(fields))

  const bytesOf = (media: Media) =>
    Effect.flatMap(Effect.flatMap(MediaStorage, (storage) => storage.read(media.storageKey)), Option.match({
      onNone: () => Effect.fail(refused("media_rejected", "media_missing", `the bytes of media ${media.id} are no longer stored`)),
      onSome: Effect.succeed
    }))

  /** A photo's bytes posted to the Page: published (a photo post) or not (for attached_media, a story). */
  const photo = (token: StoredToken, media: Media, fields: Record<string, string>) =>
    Effect.gen(function*() {
      const bytes = yield* bytesOf(media)
      const alt: Record<string, string> = media.altText === null ? {} : { alt_text_custom: media.altText }
      const request = graph("POST", `${token.page_id}/photos`, token.access_token).pipe(
        HttpClientRequest.bodyFormData(form({ ...fields, ...alt }, { name: "source", bytes, mime: media.mime }))
      )
      return yield* sendJson(client.upload, request, PhotoCreated, "media")
    })

  /** Facebook's resumable upload of /{page}/videos: a session, the bytes chunk by chunk at the offsets Facebook names, then finish. */
  const timelineVideo = (token: StoredToken, media: Media, description: Record<string, string>) =>
    Effect.gen(function*() {
      const bytes = yield* bytesOf(media)
      const started = yield* sendJson(client.publish, post(`${token.page_id}/videos`, token, { upload_phase: "start", file_size: String(bytes.length) }), SessionStarted, "media")
      let offsets = { start: Number(started.start_offset), end: Number(started.end_offset) }
      while (offsets.start < offsets.end) {
        const chunk = bytes.subarray(offsets.start, offsets.end)
        const request = graph("POST", `${token.page_id}/videos`, token.access_token).pipe(HttpClientRequest.bodyFormData(form(
          { upload_phase: "transfer", upload_session_id: started.upload_session_id, start_offset: String(offsets.start) },
          { name: "video_file_chunk", bytes: chunk, mime: "application/octet-stream" }
        )))
        const next = yield* sendJson(client.upload, request, Offsets, "media")
        offsets = { start: Number(next.start_offset), end: Number(next.end_offset) }
      }
      yield* sendJson(client.publish, post(`${token.page_id}/videos`, token, { upload_phase: "finish", upload_session_id: started.upload_session_id, ...description }), Success, "media")
      return started.video_id
    })

  /** Reels' and video stories' upload: start on `edge`, the bytes to the upload URL (header auth `OAuth`), answered with the video id. */
  const ruploaded = (token: StoredToken, edge: "video_reels" | "video_stories", media: Media) =>
    Effect.gen(function*() {
      const bytes = yield* bytesOf(media)
      const started = yield* sendJson(client.publish, post(`${token.page_id}/${edge}`, token, { upload_phase: "start" }), UploadStarted, "media")
      yield* sendJson(
        client.upload,
        HttpClientRequest.post(started.upload_url).pipe(
          HttpClientRequest.setHeaders({ authorization: `OAuth ${token.access_token}`, offset: "0", file_size: String(bytes.length) }),
          HttpClientRequest.bodyUint8Array(bytes, "application/octet-stream")
        ),
        Success,
        "media"
      )
      return started.video_id
    })

  const permalinkOf = (token: StoredToken, id: string, fallback: string) =>
    sendJson(client.read, graph("GET", `${id}?fields=permalink_url`, token.access_token), Permalink).pipe(
      Effect.map((read) => read.permalink_url === undefined ? fallback : new URL(read.permalink_url, "https://www.facebook.com").toString()),
      // The post exists: a receipt without its permalink beats a failure that would post again.
      Effect.orElseSucceed(() => fallback)
    )

  const timeline = (token: StoredToken, request: PublishRequest, media: ReadonlyArray<Media>) =>
    Effect.gen(function*() {
      const configuration = (request.configuration ?? {}) as Configuration
      const message: Record<string, string> = request.text === null ? {} : { message: request.text }
      const [first] = media
      if (first?.kind === "video") {
        const id = yield* timelineVideo(token, first, request.text === null ? {} : { description: request.text })
        return { id, url: yield* permalinkOf(token, id, `https://www.facebook.com/${token.page_id}/videos/${id}`) }
      }
      if (first !== undefined && media.length === 1) {
        const made = yield* photo(token, first, { published: "true", ...(request.text === null ? {} : { caption: request.text }) })
        const id = made.post_id ?? made.id
        return { id, url: yield* permalinkOf(token, id, `https://www.facebook.com/${id}`) }
      }
      const attached = yield* Effect.forEach(media, (item) => Effect.map(photo(token, item, { published: "false" }), (made) => ({ media_fbid: made.id })))
      const fields = {
        ...message,
        ...(configuration.link === undefined ? {} : { link: configuration.link }),
        ...(attached.length === 0 ? {} : { attached_media: JSON.stringify(attached) })
      }
      const created = yield* sendJson(client.publish, post(`${token.page_id}/feed`, token, fields), Created)
      return { id: created.id, url: yield* permalinkOf(token, created.id, `https://www.facebook.com/${created.id}`) }
    })

  const reel = (token: StoredToken, request: PublishRequest, clip: Media) =>
    Effect.gen(function*() {
      const id = yield* ruploaded(token, "video_reels", clip)
      yield* sendJson(
        client.publish,
        post(`${token.page_id}/video_reels`, token, { video_id: id, upload_phase: "finish", video_state: "PUBLISHED", ...(request.text === null ? {} : { description: request.text }) }),
        Success
      )
      return { id, url: `https://www.facebook.com/reel/${id}` }
    })

  const story = (token: StoredToken, item: Media) =>
    Effect.gen(function*() {
      const published = item.kind === "video"
        ? yield* Effect.flatMap(ruploaded(token, "video_stories", item), (id) =>
          sendJson(client.publish, post(`${token.page_id}/video_stories`, token, { video_id: id, upload_phase: "finish" }), StoryPublished))
        : yield* Effect.flatMap(photo(token, item, { published: "false" }), (made) =>
          sendJson(client.publish, post(`${token.page_id}/photo_stories`, token, { photo_id: made.id }), StoryPublished))
      return { id: published.post_id, url: `https://www.facebook.com/stories/${token.page_id}/${published.post_id}` }
    })

  const publishOnce = (token: StoredToken, request: PublishRequest) =>
    Effect.gen(function*() {
      const placement = placementOf(request.configuration)
      const media = splitMedia("facebook", request.media, placement).sent
      const [first] = media
      const made = placement === "timeline"
        ? yield* timeline(token, request, media)
        : first === undefined
        ? yield* refused("content_rejected", "media_required", `${network} ${placement} need media`)
        : placement === "reels"
        ? yield* reel(token, request, first)
        : yield* story(token, first)
      return { platformPostId: made.id, url: made.url, note: null } satisfies Published
    })

  const publish = (request: PublishRequest) =>
    withToken(request.account, (token) => publishOnce(token, request)).pipe(asPublish, Effect.provide(context))

  /**
   * The delivery's post, if the Page holds it: the Page's recent posts read for one with the
   * delivery's text (Facebook keeps no field of the caller's). A post without text cannot be told
   * apart, so none is claimed.
   */
  const reconcile = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      Effect.gen(function*() {
        if (request.text === null) return Option.none<Published>()
        const feed = yield* sendJson(client.read, graph("GET", `${token.page_id}/published_posts?fields=id,message,created_time,permalink_url&limit=50`, token.access_token), Feed)
        const since = (yield* Clock.currentTimeMillis) - reconcileWindowMs
        const found = feed.data.find((entry) => entry.message === request.text && (entry.created_time === undefined || Date.parse(entry.created_time) >= since))
        return Option.map(Option.fromNullable(found), (entry): Published => ({
          platformPostId: entry.id,
          url: entry.permalink_url ?? `https://www.facebook.com/${entry.id}`,
          note: null
        }))
      })).pipe(asPublish, Effect.provide(context))

  const takedown = (account: SocialAccount, platformPostId: string) =>
    withToken(account, (token) => send(client.publish, graph("DELETE", encodeURIComponent(platformPostId), token.access_token))).pipe(
      asPublish,
      Effect.asVoid,
      goneWhenNotFound(`${network} holds no live post ${platformPostId}`),
      Effect.provide(context)
    )

  return {
    publish,
    reconcile,
    takedown
  }
}
