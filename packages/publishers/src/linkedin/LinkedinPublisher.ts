/**
 * Publishing to LinkedIn through the Posts API: media uploaded first (LinkedinMedia), then one
 * POST /rest/posts whose answer names the post in its x-restli-id header.
 */
import { HttpClientRequest } from "@effect/platform"
import { AlreadyGone, OutcomeUnknown, type Published, type Publisher, PublishFailed, type PublishRequest, type SocialAccount } from "@herald/core"
import { Clock, type Context, Effect, Option, Schema } from "effect"
import { asPublish, type PlatformClient, publishFailure, publishFailureOfRead } from "../kit/index.js"
import { makeMediaUploads } from "./LinkedinMedia.js"
import { isDeliveryPost, LinkedinPost, postBody, postUrl } from "./PostContent.js"
import { rest, send, sendJson } from "./Rest.js"
import { type Needs, type Token, withToken } from "./Token.js"

const PostsPage = Schema.Struct({ elements: Schema.Array(LinkedinPost) })

/** How far back reconcile looks: past the dispatcher's 24 hours of trying to confirm an outcome. */
const reconcileWindowMs = 25 * 60 * 60 * 1000

/** A gateway timeout on the create was classified outcome_unknown: the post may exist. */
const unknownWhenUnsure = (failure: PublishFailed | OutcomeUnknown) =>
  failure._tag === "PublishFailed" && failure.error.category === "outcome_unknown"
    ? new OutcomeUnknown({ detail: failure.error.message })
    : failure

export const linkedinPublisher = (client: PlatformClient, context: Context.Context<Needs>): Publisher => {
  const media = makeMediaUploads(client)

  const create = (token: Token, request: PublishRequest) =>
    Effect.gen(function*() {
      const uploaded = yield* Effect.forEach(request.media, (item) => media.upload(token, item))
      const answer = yield* send(
        client.publish,
        rest("POST", "/rest/posts", token.accessToken).pipe(HttpClientRequest.bodyUnsafeJson(postBody(token.author, request, uploaded))),
        "post"
      )
      const urn = answer.headers["x-restli-id"]
      if (urn === undefined || !urn.startsWith("urn:li:")) {
        return yield* new OutcomeUnknown({ detail: "LinkedIn accepted the post without naming it (no x-restli-id header)" })
      }
      return { platformPostId: urn, url: postUrl(urn), note: null } satisfies Published
    })

  const publish = (request: PublishRequest) =>
    withToken(request.account, (token) => create(token, request)).pipe(
      Effect.mapError((error) =>
        error._tag === "OutcomeUnknown"
          ? error
          : error._tag === "PlatformCallFailed"
          ? publishFailureOfRead(error)
          : unknownWhenUnsure(publishFailure(error))
      ),
      Effect.provide(context)
    )

  const reconcile = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      Effect.gen(function*() {
        const query = new URLSearchParams({ author: token.author, q: "author", count: "50", sortBy: "CREATED" })
        const page = yield* sendJson(client.read, rest("GET", `/rest/posts?${query}`, token.accessToken), "read", PostsPage)
        const since = (yield* Clock.currentTimeMillis) - reconcileWindowMs
        const found = page.elements.find((post) =>
          (post.createdAt === undefined || post.createdAt >= since) && post.lifecycleState !== "DELETED" && isDeliveryPost(post, token.author, request)
        )
        return Option.map(Option.fromNullable(found), (post): Published => ({ platformPostId: post.id, url: postUrl(post.id), note: null }))
      })).pipe(asPublish, Effect.provide(context))

  const takedown = (account: SocialAccount, platformPostId: string) =>
    withToken(account, (token) => send(client.publish, rest("DELETE", `/rest/posts/${encodeURIComponent(platformPostId)}`, token.accessToken), "read")).pipe(
      asPublish,
      Effect.asVoid,
      Effect.catchIf(
        (failure): failure is PublishFailed => failure._tag === "PublishFailed" && failure.error.category === "not_found",
        () => Effect.fail(new AlreadyGone({ detail: `LinkedIn holds no live post ${platformPostId}` }))
      ),
      Effect.provide(context)
    )

  return {
    publish,
    reconcile,
    takedown
  }
}
