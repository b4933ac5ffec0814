/**
 * A Page post's engagement. Feed posts ({page}_{post} ids): GET /{post}/insights with
 * post_media_view (views) and post_total_media_view_unique (reach), which replaced the
 * post_impressions* metrics Meta removed in 2026, post_reactions_by_type_total (likes: every
 * reaction), and the post's comments and shares counts from its fields. Videos and reels (video
 * ids): GET /{video}/video_insights (total_video_views, blue_reels_play_count for reels,
 * post_video_likes_by_reaction_type). Facebook reports no saves or per-post clicks here (null,
 * never zero); stories report nothing through these calls (unsupported).
 */
import { MetricsReading, type MetricsSource, type PostMetrics } from "@herald/core"
import { type Context, Effect, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { graph, network, sendJson } from "./FacebookApi.js"
import { type Needs, type StoredToken, withToken } from "./FacebookToken.js"

const Value = Schema.Union(Schema.Number, Schema.Record({ key: Schema.String, value: Schema.Number }))
const Insights = Schema.Struct({
  data: Schema.Array(Schema.Struct({ name: Schema.String, values: Schema.optional(Schema.Array(Schema.Struct({ value: Value }))) }))
})
const Counts = Schema.Struct({
  comments: Schema.optional(Schema.Struct({ summary: Schema.optional(Schema.Struct({ total_count: Schema.Number })) })),
  shares: Schema.optional(Schema.Struct({ count: Schema.Number }))
})

const postMetrics = "post_media_view,post_total_media_view_unique,post_reactions_by_type_total"
const videoMetrics = "total_video_views,blue_reels_play_count,post_video_likes_by_reaction_type"

const none: PostMetrics = { views: null, reach: null, likes: null, comments: null, shares: null, saves: null, clicks: null, videoViews: null }

/** A metric's latest value: a number, or the sum of a breakdown (reactions by type). */
const readings = (reply: typeof Insights.Type) => {
  const values = new Map<string, number>()
  for (const entry of reply.data) {
    const value = entry.values?.at(-1)?.value
    if (value === undefined) continue
    values.set(entry.name, Math.max(0, Math.round(typeof value === "number" ? value : Object.values(value).reduce((sum, count) => sum + count, 0))))
  }
  return (name: string) => values.get(name) ?? null
}

/** A feed post's id is {page-id}_{post-id}; a video's or reel's is the video id alone. */
const isFeedPost = (id: string) => id.includes("_")

export const facebookMetrics = (client: PlatformClient, context: Context.Context<Needs>): MetricsSource => {
  const feedPost = (token: StoredToken, id: string) =>
    Effect.gen(function*() {
      const count = readings(yield* sendJson(client.read, graph("GET", `${encodeURIComponent(id)}/insights?metric=${postMetrics}`, token.access_token), Insights))
      const node = yield* sendJson(client.read, graph("GET", `${encodeURIComponent(id)}?fields=comments.summary(true).limit(0),shares`, token.access_token), Counts)
      return MetricsReading.Reported({
        metrics: {
          ...none,
          views: count("post_media_view"),
          reach: count("post_total_media_view_unique"),
          likes: count("post_reactions_by_type_total"),
          comments: node.comments?.summary?.total_count ?? null,
          // Facebook leaves `shares` out of a post nobody shared.
          shares: node.shares?.count ?? 0
        }
      })
    })

  const video = (token: StoredToken, id: string) =>
    Effect.map(sendJson(client.read, graph("GET", `${encodeURIComponent(id)}/video_insights?metric=${videoMetrics}`, token.access_token), Insights), (reply) => {
      const count = readings(reply)
      const views = count("blue_reels_play_count") ?? count("total_video_views")
      return MetricsReading.Reported({ metrics: { ...none, views, videoViews: views, likes: count("post_video_likes_by_reaction_type") } })
    })

  return {
    fetch: ({ account, platformPostId }) =>
      withToken(account, (token) => isFeedPost(platformPostId) ? feedPost(token, platformPostId) : video(token, platformPostId)).pipe(
        asRead,
        Effect.catchIf(
          (failure) => failure.error.category === "not_found" || failure.error.category === "permission_missing" || failure.error.category === "content_rejected",
          (failure) =>
            Effect.succeed(
              failure.error.category === "not_found"
                ? MetricsReading.Unreportable({ reason: "deleted", detail: `${network} holds no post ${platformPostId}` })
                : failure.error.category === "permission_missing"
                ? MetricsReading.Unreportable({ reason: "unsupported", detail: `${network} reports insights only to connections granted read_insights and the Page's ANALYZE task` })
                : MetricsReading.Unreportable({ reason: "unsupported", detail: `${network} reports no insights for ${platformPostId} (a story, or a kind it does not measure): ${failure.error.message}` })
            )
        ),
        Effect.provide(context)
      )
  }
}
