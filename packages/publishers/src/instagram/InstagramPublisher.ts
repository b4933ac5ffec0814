/**
 * Publishing to Instagram through its container flow (meta/Containers): the publishing quota read
 * first (content_publishing_limit), a carousel's items created and each waited on until FINISHED,
 * the post's container created, recorded, waited on and published, and the post's permalink read
 * for the receipt. Deletes only through Facebook Login.
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
import { asPublish, goneWhenNotFound, type PlatformClient, PlatformRefusal, publicMediaUrl } from "../kit/index.js"
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
import type { StoredToken } from "../meta/UserToken.js"
import { graphOf, type InstagramLogin, type Needs, network, send, sendJson, withToken } from "./InstagramApi.js"
import { asSent, carouselItemFields, configurationOf, optionFields, postUrl, productTypeOf, singleFields } from "./InstagramPosts.js"

const Status = Schema.Struct({ id: Schema.optional(Schema.String), status_code: ContainerState, status: Schema.optional(Schema.String) })
const InstagramMedia = Schema.Struct({
  id: Schema.String,
  caption: Schema.optional(Schema.String),
  timestamp: Schema.optional(Schema.String),
  permalink: Schema.optional(Schema.String),
  media_product_type: Schema.optional(Schema.String)
})
const MediaPage = Schema.Struct({ data: Schema.Array(InstagramMedia) })
const Discovered = Schema.Struct({ business_discovery: Schema.Struct({ id: Schema.String }) })

/** How far back reconcile looks: past the dispatcher's 24 hours of trying to confirm an outcome. */
const reconcileWindowMs = 25 * 60 * 60 * 1000

const refused = (category: "media_rejected" | "rate_limited" | "permission_missing" | "content_rejected", code: string, message: string, retryAfterMs: number | null = null) =>
  new PlatformRefusal({ error: { category, code, message }, retryAfterMs })

export const instagramPublisher = (login: InstagramLogin, client: PlatformClient, context: Context.Context<Needs>): Publisher => {
  const graph = graphOf(login)
  const form = (path: string, token: StoredToken, fields: Record<string, string>) =>
    graph("POST", path, token.access_token).pipe(HttpClientRequest.bodyUrlParams(fields))

  const recentMedia = (token: StoredToken, edge: "media" | "stories", limit: number) =>
    sendJson(
      client.read,
      graph("GET", `${token.user_id}/${edge}?fields=id,caption,timestamp,permalink,media_product_type&limit=${limit}`, token.access_token),
      MediaPage
    )

  /**
   * Refused as rate_limited when the account has used its posts of the moving 24 hours, until
   * the oldest of them ages out of the window (read from the account's own posts).
   */
  const quotaLeft = (token: StoredToken) =>
    Effect.gen(function*() {
      const quota = yield* sendJson(client.read, graph("GET", `${token.user_id}/content_publishing_limit?fields=quota_usage,config`, token.access_token), PublishingLimit)
      const used = quota.data[0]
      if (used === undefined || used.config === undefined || used.quota_usage < used.config.quota_total) return
      return yield* publishingLimitReached(
        { network, code: "content_publishing_limit", total: used.config.quota_total, used: used.quota_usage, windowMs: used.config.quota_duration * 1000 },
        () =>
          Effect.map(
            Effect.all([recentMedia(token, "media", 100), recentMedia(token, "stories", 100)]),
            (pages) => pages.flatMap((page) => page.data.map((post) => Date.parse(post.timestamp ?? "")))
          )
      )
    })

  const status = (token: StoredToken) => (container: string) =>
    Effect.map(
      sendJson(client.read, graph("GET", `${container}?fields=id,status_code,status`, token.access_token), Status),
      (seen) => ({ state: seen.status_code, errorMessage: seen.status ?? null })
    )

  const urlOf = (media: Media) => publicMediaUrl(network, media)

  /** The sponsors' Instagram user ids, from their usernames (Business Discovery). */
  const sponsorIds = (token: StoredToken, request: PublishRequest) =>
    Effect.forEach(configurationOf(request).branded_content_sponsors ?? [], (username) => {
      const name = username.replace(/^@/, "")
      return sendJson(
        client.read,
        graph("GET", `${token.user_id}?fields=${encodeURIComponent(`business_discovery.username(${name}){id}`)}`, token.access_token),
        Discovered
      ).pipe(
        Effect.map((found) => found.business_discovery.id),
        Effect.catchIf(
          (failure) => failure._tag === "PlatformRefusal" && (failure.error.category === "content_rejected" || failure.error.category === "not_found"),
          () => Effect.fail(refused("content_rejected", "sponsor_not_found", `${network} has no professional account @${name} to name as a branded content sponsor`))
        )
      )
    })

  const container = (token: StoredToken, fields: Record<string, string>) =>
    Effect.map(sendJson(client.publish, form(`${token.user_id}/media`, token, fields), CreatedId, "media"), (created) => created.id)

  /** A carousel item's container, waited on until FINISHED (the carousel's own container is the flow's). */
  const carouselItem = (token: StoredToken, media: Media) =>
    Effect.gen(function*() {
      const id = yield* container(token, carouselItemFields(media, yield* urlOf(media)))
      const createdAt = yield* Clock.currentTimeMillis
      yield* awaitFinished(network, status(token), { container: id, createdAt, video: media.kind === "video" }, "media_rejected")
      return id
    })

  const create = (token: StoredToken, request: PublishRequest) =>
    Effect.gen(function*() {
      const options = optionFields(request, yield* sponsorIds(token, request))
      const [first, ...rest] = request.media
      if (first === undefined) return yield* refused("content_rejected", "media_required", `${network} publishes no post without an image or a video`)
      if (rest.length === 0) return yield* container(token, { ...singleFields(request, first, yield* urlOf(first)), ...options })
      const children = yield* Effect.forEach(request.media, (item) => carouselItem(token, item))
      return yield* container(token, { media_type: "CAROUSEL", children: children.join(","), ...options })
    })

  const permalinkOf = (token: StoredToken, id: string) =>
    permalinkOrNone(sendJson(client.read, graph("GET", `${id}?fields=id,permalink`, token.access_token), Permalink))

  /** Branded content labels are Facebook Login's: refused at once through the other login. */
  const brandedContentAllowed = (request: PublishRequest) => {
    const configuration = configurationOf(request)
    const asked = configuration.is_paid_partnership === true || (configuration.branded_content_sponsors ?? []).length > 0
    return asked && !login.brandedContent
      ? refused(
        "permission_missing",
        "branded_content_unavailable",
        `${network} takes branded content labels only through Facebook Login; ${request.account.platform}:${request.account.username} is connected through ${login.name}`
      )
      : Effect.void
  }

  const publishOnce = (token: StoredToken, request: PublishRequest) =>
    Effect.gen(function*() {
      yield* brandedContentAllowed(request)
      if (Option.isNone(yield* recordedContainer(request.marker))) yield* quotaLeft(token)
      const id = yield* publishThroughContainer(
        { network, deliveryId: request.marker, video: request.media.some((item) => item.kind === "video"), refusedAs: "media_rejected" },
        {
          create: create(token, request),
          status: status(token),
          publish: (creation) =>
            Effect.map(sendJson(client.publish, form(`${token.user_id}/media_publish`, token, { creation_id: creation }), CreatedId), (published) => published.id)
        }
      )
      return { platformPostId: id, url: postUrl(token.username, yield* permalinkOf(token, id)), note: null } satisfies Published
    })

  const publish = (request: PublishRequest) =>
    withToken(request.account, (token) => publishOnce(token, asSent(request))).pipe(asContainerPublish(network), Effect.provide(context))

  /**
   * The delivery's post, if Instagram holds it. A container recorded for the delivery and not
   * PUBLISHED says no (the next attempt resumes on it); otherwise the account's recent posts (or
   * stories) are read for one with the delivery's caption and product type (Instagram keeps no
   * field of the caller's).
   */
  const reconcile = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      reconcileContainer(request.marker, status(token), Effect.gen(function*() {
        const type = productTypeOf(asSent(request))
        const page = yield* recentMedia(token, type === "STORY" ? "stories" : "media", 50)
        const since = (yield* Clock.currentTimeMillis) - reconcileWindowMs
        const found = page.data.find((post) =>
          (post.timestamp === undefined || Date.parse(post.timestamp) >= since) &&
          (type === "STORY" || (post.caption ?? null) === request.text) &&
          (post.media_product_type === undefined || post.media_product_type === type)
        )
        return Option.map(Option.fromNullable(found), (post): Published => ({ platformPostId: post.id, url: postUrl(token.username, post.permalink), note: null }))
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
    // Instagram Login deletes nothing through the API; Facebook Login does.
    ...(login.deletes ? { takedown } : {})
  }
}
