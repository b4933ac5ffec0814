/**
 * Publishing to Threads through its container flow (meta/Containers): the publishing quota read
 * first (250 posts in a moving 24 hours), the container created (a carousel's items first, each
 * FINISHED), recorded, waited on, published, and the post's permalink read for the receipt.
 */
import { HttpClientRequest } from "@effect/platform"
import {
  type Media,
  type Published,
  type Publisher,
  type PublishRequest,
  type SocialAccount
} from "@herald/core"
import { Clock, type Context, Effect, Option, Schema } from "effect"
import { asPublish, goneWhenNotFound, type PlatformClient, publicMediaUrl } from "../kit/index.js"
import {
  asContainerPublish,
  awaitFinished,
  ContainerState,
  CreatedId,
  Permalink,
  permalinkOrNone,
  PublishingLimit,
  publishingLimitReached,
  publishThroughContainer,
  reconcileContainer,
  recordedContainer
} from "../meta/Containers.js"
import { graph, network, send, sendJson } from "./ThreadsApi.js"
import { mediaFields, optionFields, postUrl } from "./ThreadsPosts.js"
import { type Needs, type StoredToken, withToken } from "./ThreadsToken.js"

const Status = Schema.Struct({ id: Schema.optional(Schema.String), status: ContainerState, error_message: Schema.optional(Schema.String) })
export const ThreadsPost = Schema.Struct({
  id: Schema.String,
  text: Schema.optional(Schema.String),
  timestamp: Schema.optional(Schema.String),
  permalink: Schema.optional(Schema.String),
  media_type: Schema.optional(Schema.String)
})
const Posts = Schema.Struct({ data: Schema.Array(ThreadsPost) })
const PostTimes = Schema.Struct({
  data: Schema.Array(Schema.Struct({ timestamp: Schema.optional(Schema.String) })),
  paging: Schema.optional(Schema.Struct({ cursors: Schema.optional(Schema.Struct({ after: Schema.optional(Schema.String) })) }))
})

/** Threads' documented publishing limit and its window, when the quota read gives no config. */
const quotaTotal = 250
const quotaWindowSeconds = 24 * 60 * 60
/** The user threads edge answers at most 100 posts a page; 250 posts of a window fit in three. */
const windowPages = 3
/** How far back reconcile looks: past the dispatcher's 24 hours of trying to confirm an outcome. */
const reconcileWindowMs = 25 * 60 * 60 * 1000

const mediaTypes: Record<string, string> = { "": "TEXT_POST", image: "IMAGE", video: "VIDEO", carousel: "CAROUSEL_ALBUM" }
const shapeOf = (request: PublishRequest) =>
  request.media.length > 1 ? mediaTypes.carousel : mediaTypes[request.media[0]?.kind === "video" ? "video" : request.media.length === 1 ? "image" : ""]

export const threadsPublisher = (client: PlatformClient, context: Context.Context<Needs>): Publisher => {
  const form = (path: string, token: StoredToken, fields: Record<string, string>) =>
    graph("POST", path, token.access_token).pipe(HttpClientRequest.bodyUrlParams(fields))

  /** When the account's posts of the window were published (newest first, a page at a time). */
  const publishedSince = (token: StoredToken, sinceSeconds: number) =>
    Effect.gen(function*() {
      const times: Array<number> = []
      let after = ""
      for (let page = 0; page < windowPages; page++) {
        const cursor = after === "" ? "" : `&after=${encodeURIComponent(after)}`
        const read = yield* sendJson(client.read, graph("GET", `${token.user_id}/threads?fields=id,timestamp&since=${sinceSeconds}&limit=100${cursor}`, token.access_token), PostTimes)
        times.push(...read.data.map((post) => Date.parse(post.timestamp ?? "")))
        after = read.paging?.cursors?.after ?? ""
        if (read.data.length === 0 || after === "") break
      }
      return times
    })

  /** Refused as rate_limited when the account has used its posts of the moving 24 hours (publishingLimitReached). */
  const quotaLeft = (token: StoredToken) =>
    Effect.gen(function*() {
      const quota = yield* sendJson(client.read, graph("GET", `${token.user_id}/threads_publishing_limit?fields=quota_usage,config`, token.access_token), PublishingLimit)
      const used = quota.data[0]
      if (used === undefined) return
      const total = used.config?.quota_total ?? quotaTotal
      if (used.quota_usage < total) return
      return yield* publishingLimitReached(
        { network, code: "threads_publishing_limit", total, used: used.quota_usage, windowMs: (used.config?.quota_duration ?? quotaWindowSeconds) * 1000 },
        (sinceMillis) => publishedSince(token, Math.floor(sinceMillis / 1000))
      )
    })

  const status = (token: StoredToken) => (container: string) =>
    Effect.map(
      sendJson(client.read, graph("GET", `${container}?fields=id,status,error_message`, token.access_token), Status),
      (seen) => ({ state: seen.status, errorMessage: seen.error_message ?? null })
    )

  const urlOf = (media: Media) => publicMediaUrl(network, media)

  const container = (token: StoredToken, fields: Record<string, string>, stage: "media" | "call") =>
    Effect.map(sendJson(client.publish, form(`${token.user_id}/threads`, token, fields), CreatedId, stage), (created) => created.id)

  /** A carousel item's container, waited on until FINISHED (the carousel's own container is the flow's). */
  const carouselItem = (token: StoredToken, media: Media) =>
    Effect.gen(function*() {
      const id = yield* container(token, { ...mediaFields(media, yield* urlOf(media)), is_carousel_item: "true" }, "media")
      const createdAt = yield* Clock.currentTimeMillis
      yield* awaitFinished(network, status(token), { container: id, createdAt, video: media.kind === "video" }, "media_rejected")
      return id
    })

  const create = (token: StoredToken, request: PublishRequest) =>
    Effect.gen(function*() {
      const text: Record<string, string> = request.text === null ? {} : { text: request.text }
      const options = optionFields(request)
      const [first, ...rest] = request.media
      if (first === undefined) return yield* container(token, { media_type: "TEXT", ...text, ...options }, "call")
      if (rest.length === 0) return yield* container(token, { ...mediaFields(first, yield* urlOf(first)), ...text, ...options }, "media")
      const children = yield* Effect.forEach(request.media, (item) => carouselItem(token, item))
      return yield* container(token, { media_type: "CAROUSEL", children: children.join(","), ...text, ...options }, "media")
    })

  const permalinkOf = (token: StoredToken, id: string) =>
    permalinkOrNone(sendJson(client.read, graph("GET", `${id}?fields=id,permalink`, token.access_token), Permalink))

  const publishOnce = (token: StoredToken, request: PublishRequest) =>
    Effect.gen(function*() {
      if (Option.isNone(yield* recordedContainer(request.marker))) yield* quotaLeft(token)
      const id = yield* publishThroughContainer(
        {
          network,
          deliveryId: request.marker,
          video: request.media.some((item) => item.kind === "video"),
          refusedAs: request.media.length === 0 ? "content_rejected" : "media_rejected"
        },
        {
          create: create(token, request),
          status: status(token),
          publish: (creation) =>
            Effect.map(
              sendJson(client.publish, form(`${token.user_id}/threads_publish`, token, { creation_id: creation }), CreatedId),
              (published) => published.id
            )
        }
      )
      return { platformPostId: id, url: postUrl(token.username, yield* permalinkOf(token, id), id), note: null } satisfies Published
    })

  const publish = (request: PublishRequest) =>
    withToken(request.account, (token) => publishOnce(token, request)).pipe(asContainerPublish(network), Effect.provide(context))

  /**
   * The delivery's post, if Threads holds it. A container recorded for the delivery and not
   * PUBLISHED says no (the next attempt resumes on it); otherwise the account's recent posts are
   * read for one with the delivery's text and kind of media (Threads keeps no field of the caller's).
   */
  const reconcile = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      reconcileContainer(request.marker, status(token), Effect.gen(function*() {
        const page = yield* sendJson(
          client.read,
          graph("GET", `${token.user_id}/threads?fields=id,text,timestamp,permalink,media_type&limit=50`, token.access_token),
          Posts
        )
        const since = (yield* Clock.currentTimeMillis) - reconcileWindowMs
        const found = page.data.find((post) =>
          (post.timestamp === undefined || Date.parse(post.timestamp) >= since) &&
          (post.text ?? null) === request.text &&
          (post.media_type === undefined || post.media_type === shapeOf(request))
        )
        return Option.map(Option.fromNullable(found), (post): Published => ({ platformPostId: post.id, url: postUrl(token.username, post.permalink, post.id), note: null }))
      }))).pipe(asPublish, Effect.provide(context))

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
