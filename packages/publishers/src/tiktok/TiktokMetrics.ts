/**
 * A TikTok post's engagement from the Display API's POST /v2/video/query/ (video.list): view_count
 * → views, like_count → likes, comment_count → comments, share_count → shares. TikTok reports no
 * reach, saves or clicks (null, never zero), and only on public posts: a receipt that holds a
 * publish_id (a post private, or still in moderation, when it went out) asks TikTok once more
 * whether it has a public id now.
 */
import { MetricsReading, type MetricsSource, type PostMetrics } from "@herald/core"
import { type Context, Effect, Option, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { api, call } from "./TiktokApi.js"
import { network } from "./TiktokErrors.js"
import { fetchStatus, postIdOf } from "./TiktokStatus.js"
import { type Needs, withToken } from "./TiktokToken.js"

const Count = Schema.optional(Schema.NullOr(Schema.Number))
const Videos = Schema.Struct({
  videos: Schema.optionalWith(
    Schema.Array(Schema.Struct({ id: Schema.String, view_count: Count, like_count: Count, comment_count: Count, share_count: Count })),
    { default: () => [] }
  )
})

const none: PostMetrics = { views: null, reach: null, likes: null, comments: null, shares: null, saves: null, clicks: null, videoViews: null }

const count = (value: number | null | undefined) => value == null ? null : Math.max(0, Math.round(value))

export const tiktokMetrics = (client: PlatformClient, context: Context.Context<Needs>): MetricsSource => ({
  fetch: ({ account, platformPostId }) =>
    withToken(account, (token) =>
      Effect.gen(function*() {
        const postId = platformPostId.startsWith("v_pub_")
          ? Option.fromNullable(postIdOf(yield* fetchStatus(client.read, token.access_token, platformPostId)))
          : Option.some(platformPostId)
        if (Option.isNone(postId)) {
          return MetricsReading.Unreportable({
            reason: "unsupported",
            detail: `${network} reports metrics of public posts only, and publish ${platformPostId} has no public id (a private post, or one still in moderation)`
          })
        }
        const reply = yield* call(
          client.read,
          api("POST", "/v2/video/query/?fields=id,view_count,like_count,comment_count,share_count", token.access_token, { filters: { video_ids: [postId.value] } }),
          Videos
        )
        const video = reply.videos.find((candidate) => candidate.id === postId.value)
        if (video === undefined) return MetricsReading.Unreportable({ reason: "deleted", detail: `${network} holds no public video ${postId.value}` })
        return MetricsReading.Reported({
          metrics: {
            ...none,
            views: count(video.view_count),
            videoViews: count(video.view_count),
            likes: count(video.like_count),
            comments: count(video.comment_count),
            shares: count(video.share_count)
          }
        })
      })).pipe(asRead, Effect.provide(context))
})
