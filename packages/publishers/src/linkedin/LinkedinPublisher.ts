/**
 * Publishing to LinkedIn through the Posts API: media uploaded first (LinkedinMedia), then one
 * POST /rest/posts whose answer names the post in its x-restli-id header.
 */
import { HttpClientRequest } from "@effect/platform"
import {
  AlreadyGone,
  OutcomeUnknown,
  type PlatformCallFailed,
  type Published,
  type Publisher,
  PublishFailed,
  type PublishRequest,
  type SocialAccount
} from "@herald/core"
import { Clock, type Context, Effect, Option, Schema } from "effect"
import type { MediaUnreadable } from "./KitShim.js"
import { createFailed, publishFailed, tokenLost } from "./LinkedinErrors.js"
import { makeMediaUploads } from "./LinkedinMedia.js"
import { isDeliveryPost, LinkedinPost, postBody, postUrl } from "./PostContent.js"
import { rest, send, sendJson, under } from "./Rest.js"
import { type Needs, type Token, withToken } from "./Token.js"

const noToken = (failed: PlatformCallFailed | string): PublishFailed =>
  typeof failed === "string"
    ? new PublishFailed({ error: { category: "auth_expired", code: "credentials_unusable", message: `${failed}; reconnect the account` }, transient: false, retryAfterMs: null })
    : tokenLost(failed)

const mediaUnreadable = (unreadable: MediaUnreadable) =>
  new PublishFailed({ error: { category: "media_rejected", code: "media_unreadable", message: unreadable.detail }, transient: false, retryAfterMs: null })

const PostsPage = Schema.Struct({ elements: Schema.Array(LinkedinPost) })

/** How far back reconcile looks: past the dispatcher's 24 hours of trying to confirm an outcome. */
const reconcileWindowMs = 25 * 60 * 60 * 1000

export const linkedinPublisher = (apiBaseUrl: string, context: Context.Context<Needs>): Publisher => {
  const api = (path: string) => under(apiBaseUrl, path)
  const media = makeMediaUploads(apiBaseUrl)

  const create = (token: Token, request: PublishRequest) =>
    Effect.gen(function*() {
      const uploaded = yield* Effect.forEach(request.media, (item) =>
        media.upload(token, item).pipe(
          Effect.catchTags({
            // A refused token is refreshed and the whole publish run again (withToken).
            LinkedinRefused: (failure) => Effect.fail(failure.status === 401 ? failure : publishFailed(failure, "media")),
            LinkedinNoAnswer: (failure) => Effect.fail(publishFailed(failure, "media")),
            MediaUnreadable: (unreadable) => Effect.fail(mediaUnreadable(unreadable))
          })
        ))
      const answer = yield* send(
        rest("POST", api("/rest/posts"), token.accessToken).pipe(HttpClientRequest.bodyUnsafeJson(postBody(token.author, request, uploaded))),
        "publish"
      ).pipe(Effect.catchTag("LinkedinNoAnswer", (failure) => Effect.fail(createFailed(failure))))
      const urn = answer.headers["x-restli-id"]
      if (urn === undefined || !urn.startsWith("urn:li:")) {
        return yield* new OutcomeUnknown({ detail: "LinkedIn accepted the post without naming it (no x-restli-id header)" })
      }
      return { platformPostId: urn, url: postUrl(urn), note: null } satisfies Published
    })

  const publish = (request: PublishRequest) =>
    withToken(request.account, (token) => create(token, request), noToken).pipe(
      Effect.catchTag("LinkedinRefused", (failure) => Effect.fail(createFailed(failure))),
      Effect.provide(context)
    )

  const reconcile = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      Effect.gen(function*() {
        const page = yield* sendJson(
          rest("GET", api(`/rest/posts?${new URLSearchParams({ author: token.author, q: "author", count: "50", sortBy: "CREATED" })}`), token.accessToken),
          "read",
          PostsPage
        )
        const since = (yield* Clock.currentTimeMillis) - reconcileWindowMs
        const found = page.elements.find((post) =>
          (post.createdAt === undefined || post.createdAt >= since) && post.lifecycleState !== "DELETED" && isDeliveryPost(post, token.author, request)
        )
        return Option.map(Option.fromNullable(found), (post): Published => ({ platformPostId: post.id, url: postUrl(post.id), note: null }))
      }), noToken).pipe(
      Effect.catchTags({
        LinkedinRefused: (failure) => Effect.fail(publishFailed(failure, "post")),
        LinkedinNoAnswer: (failure) => Effect.fail(new OutcomeUnknown({ detail: `LinkedIn did not answer the look-up: ${failure.detail}` }))
      }),
      Effect.provide(context)
    )

  const takedown = (account: SocialAccount, platformPostId: string) =>
    withToken(account, (token) =>
      send(rest("DELETE", api(`/rest/posts/${encodeURIComponent(platformPostId)}`), token.accessToken), "publish"), noToken).pipe(
      Effect.asVoid,
      Effect.catchTags({
        LinkedinRefused: (failure): Effect.Effect<never, PublishFailed | OutcomeUnknown | AlreadyGone> =>
          failure.status === 404 || failure.status === 410
            ? Effect.fail(new AlreadyGone({ detail: `LinkedIn holds no live post ${platformPostId}` }))
            : Effect.fail(publishFailed(failure, "post")),
        LinkedinNoAnswer: (failure) => Effect.fail(new OutcomeUnknown({ detail: `LinkedIn gave no usable answer to the delete: ${failure.detail}` }))
      }),
      Effect.provide(context)
    )

  return {
    capabilities: { publish: true, delete: true, reconcile: true, peopleTagCheck: false },
    publish,
    reconcile,
    takedown
  }
}
