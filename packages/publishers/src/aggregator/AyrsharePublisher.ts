/**
 * Instagram through Ayrshare: POST /post with the caption, the media's public URLs and
 * `instagramOptions` (people tags as `userTags`, stories, reel cover and thumbnail offset,
 * collaborators), then the first comment through POST /comments on Ayrshare's post id; GET
 * /history to find a post whose answer was lost; GET /brand/byUser to confirm people tags' handles
 * (the login variant only). No takedown: Ayrshare cannot delete published Instagram posts.
 */
import {
  type InstagramConfiguration,
  type Media,
  MediaStorage,
  type Placement,
  type PublishRequest,
  type Published,
  type Publisher,
  type SocialAccount,
  splitMedia
} from "@herald/core"
import { Clock, type Context, Effect, Option } from "effect"
import { asPublish, authorized, type PlatformClient, PlatformRefusal } from "../kit/index.js"
import { Acknowledged, ayrshare, HistoryReply, type AyrshareKeys, keysOf, type Needs, PostReply, send } from "./AyrshareApi.js"

type Configuration = typeof InstagramConfiguration.Type

const configurationOf = (request: PublishRequest) => (request.configuration ?? {}) as Configuration
const placementOf = (request: PublishRequest): Placement => configurationOf(request).placement ?? "timeline"

/** How far back reconcile looks: past the dispatcher's 24 hours of trying to confirm an outcome. */
const reconcileWindowMs = 25 * 60 * 60 * 1000

/** Where a tag sits when Herald has no coordinates for it: the image's centre (Ayrshare's x and y run 0.0–1.0 from the top left). */
const centre = 0.5

const refused = (category: "media_rejected" | "content_rejected", code: string, message: string) =>
  new PlatformRefusal({ error: { category, code, message }, retryAfterMs: null })

/**
 * The people tags of the images sent (each handle once, without its @): photo tags at the centre
 * on a feed image, and on a story the bare handles, which Instagram shows as a mention sticker.
 */
export const userTagsOf = (media: ReadonlyArray<Media>, placement: Placement) => {
  const handles = [...new Set(media.filter((item) => item.kind === "image").flatMap((item) => item.peopleTags.map((tag) => tag.replace(/^@/, ""))))]
  return placement === "stories" ? handles.map((username) => ({ username })) : handles.map((username) => ({ username, x: centre, y: centre }))
}

/** The body of POST /post for one delivery: Ayrshare's field for each of Herald's. */
export const postBody = (request: PublishRequest, mediaUrls: ReadonlyArray<string>, sent: ReadonlyArray<Media>) => {
  const configuration = configurationOf(request)
  const placement = placementOf(request)
  const video = sent.find((item) => item.kind === "video")
  const tags = userTagsOf(sent, placement)
  const instagramOptions = {
    ...(placement === "stories" ? { stories: true } : {}),
    ...(tags.length === 0 ? {} : { userTags: tags }),
    ...(configuration.collaborators === undefined || configuration.collaborators.length === 0
      ? {}
      : { collaborators: configuration.collaborators.map((name) => name.replace(/^@/, "")) }),
    // Ayrshare's name for a reel's cover image URL.
    ...(configuration.cover_url === undefined ? {} : { thumbNail: configuration.cover_url }),
    ...(video?.thumbnailTimestampMs == null ? {} : { thumbNailOffset: video.thumbnailTimestampMs })
  }
  return {
    post: request.text ?? "",
    platforms: ["instagram"],
    mediaUrls,
    // Presigned URLs carry no file extension, from which Ayrshare would otherwise tell a video.
    // Its Instagram page does not take isVideo on a carousel, whose videos it tells by extension.
    ...(video === undefined || sent.length > 1 ? {} : { isVideo: true }),
    ...(Object.keys(instagramOptions).length === 0 ? {} : { instagramOptions })
  }
}

export const ayrsharePublisher = (
  client: PlatformClient,
  context: Context.Context<Needs>,
  options: { readonly handleLookup: boolean }
): Publisher => {
  const withKeys = <A, E, R>(account: SocialAccount, call: (keys: AyrshareKeys) => Effect.Effect<A, E, R>) =>
    authorized(account, (credentials) => call(keysOf(credentials)))

  /** Where Instagram fetches an item from (through Ayrshare): the storage's public URL of it. */
  const urlOf = (media: Media) =>
    Effect.flatMap(
      Effect.flatMap(MediaStorage, (storage) => storage.publicUrl === undefined ? Effect.succeed(Option.none<string>()) : storage.publicUrl(media.storageKey)),
      Option.match({
        onNone: () =>
          Effect.fail(refused(
            "media_rejected",
            "media_url_unavailable",
            `Ayrshare fetches media from a public URL and this Herald's media storage cannot hand one out for media ${media.id}; store media in a bucket (docs/media.md)`
          )),
        onSome: Effect.succeed
      })
    )

  /** The Instagram post of a successful /post or /history entry, or none. */
  const instagramOf = (ayrshareId: string, posts: ReadonlyArray<typeof PostReply.Type["postIds"][number]>) => {
    const post = posts.find((candidate) => candidate.platform === "instagram" && candidate.status === "success")
    return post === undefined ? undefined : { ayrshareId, url: post.postUrl ?? null }
  }

  /**
   * The first comment, on Ayrshare's post id once the post exists. Its failure is a note on the
   * receipt, never the delivery's: the post is out, and failing it would post it again.
   */
  const firstComment = (keys: AyrshareKeys, ayrshareId: string, comment: string) =>
    send(client.publish, ayrshare("POST", "comments", keys, { id: ayrshareId, platforms: ["instagram"], comment }), Acknowledged).pipe(
      Effect.as(null),
      Effect.catchAll((failure) =>
        Effect.succeed({
          text: `the post is out, but its first comment was not added (${
            failure._tag === "PlatformRefusal" ? failure.error.message : "Ayrshare's answer was lost; it may or may not be there"
          }); add it by hand`,
          kind: null
        })
      )
    )

  const publish = (request: PublishRequest) =>
    withKeys(request.account, (keys) =>
      Effect.gen(function*() {
        const sent = splitMedia("instagram", request.media, placementOf(request)).sent
        const urls = yield* Effect.forEach(sent, urlOf)
        const reply = yield* send(client.publish, ayrshare("POST", "post", keys, postBody(request, urls, sent)), PostReply)
        const posted = instagramOf(reply.id, reply.postIds)
        if (posted === undefined || posted.url === null) {
          return yield* refused("content_rejected", "ayrshare_not_posted", `Ayrshare answered success without an Instagram post for ${reply.id}`)
        }
        const comment = configurationOf(request).first_comment
        const note = comment === undefined || comment === "" ? null : yield* firstComment(keys, reply.id, comment)
        return { platformPostId: reply.id, url: posted.url, note } satisfies Published
      })).pipe(asPublish, Effect.provide(context))

  /** Finds the post among the profile's recent ones by its caption: Ayrshare keeps no marker of Herald's. */
  const reconcile = (request: PublishRequest) =>
    withKeys(request.account, (keys) =>
      Effect.gen(function*() {
        const recent = yield* send(client.read, ayrshare("GET", "history?limit=50&lastDays=2", keys), HistoryReply)
        const since = (yield* Clock.currentTimeMillis) - reconcileWindowMs
        for (const entry of recent.history) {
          if (entry.created !== undefined && Date.parse(entry.created) < since) continue
          if ((entry.post ?? "") !== (request.text ?? "")) continue
          const posted = instagramOf(entry.id, entry.postIds)
          if (posted?.url == null) continue
          return Option.some<Published>({ platformPostId: entry.id, url: posted.url, note: null })
        }
        return Option.none<Published>()
      })).pipe(asPublish, Effect.provide(context))

  /** Each handle looked up with Ayrshare's Brand API (Instagram's Business Discovery): unknown when it finds no such account. */
  const unknownHandles = (account: SocialAccount, handles: ReadonlyArray<string>) =>
    withKeys(account, (keys) =>
      Effect.filter(handles, (handle) =>
        send(
          client.read,
          ayrshare("GET", `brand/byUser?platforms[0]=instagram&instagramUser=${encodeURIComponent(`@${handle.replace(/^@/, "")}`)}`, keys),
          Acknowledged
        ).pipe(
          Effect.as(false),
          Effect.catchIf(
            (failure) => failure._tag === "PlatformRefusal" && (failure.error.category === "not_found" || failure.error.category === "content_rejected"),
            () => Effect.succeed(true)
          )
        ), { concurrency: 4 })).pipe(asPublish, Effect.provide(context))

  return {
    publish,
    reconcile,
    // No takedown: Ayrshare's delete page (https://ayrshare.com/docs/apis/post/delete-post) says
    // published Instagram posts cannot be deleted through its API, only in the Instagram app.
    ...(options.handleLookup ? { unknownHandles } : {})
  }
}
