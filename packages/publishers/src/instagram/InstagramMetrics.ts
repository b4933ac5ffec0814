/**
 * An Instagram post's engagement from GET /{ig-media-id}/insights: reach, views, likes, comments,
 * shares and saved (saves) on feed posts and reels; reach, views and shares on a story, and
 * nothing once the story has expired (Instagram keeps story insights 24 hours). Clicks and
 * video views are not reported (null, never zero).
 */
import { MetricsReading, type MetricsSource, type PostMetrics } from "@herald/core"
import { Clock, type Context, Effect, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { graphOf, type InstagramLogin, type Needs, sendJson, withToken } from "./InstagramApi.js"

const Insights = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    name: Schema.String,
    values: Schema.optional(Schema.Array(Schema.Struct({ value: Schema.Number }))),
    total_value: Schema.optional(Schema.Struct({ value: Schema.Number }))
  }))
})
const Product = Schema.Struct({ id: Schema.String, media_product_type: Schema.optional(Schema.String), timestamp: Schema.optional(Schema.String) })

/** Asking a story for a metric it lacks fails the whole read: each kind gets its own list. */
const metricNames = { STORY: "reach,views,shares", FEED: "reach,views,likes,comments,shares,saved" } as const

const storyLifetimeMs = 24 * 60 * 60 * 1000

const none: PostMetrics = { views: null, reach: null, likes: null, comments: null, shares: null, saves: null, clicks: null, videoViews: null }

export const instagramMetrics = (login: InstagramLogin, client: PlatformClient, context: Context.Context<Needs>): MetricsSource => {
  const graph = graphOf(login)
  return {
    fetch: ({ account, platformPostId }) =>
      withToken(account, (token) =>
        Effect.gen(function*() {
          const id = encodeURIComponent(platformPostId)
          const post = yield* sendJson(client.read, graph("GET", `${id}?fields=id,media_product_type,timestamp`, token.access_token), Product)
          const story = post.media_product_type === "STORY"
          if (story && post.timestamp !== undefined && (yield* Clock.currentTimeMillis) - Date.parse(post.timestamp) >= storyLifetimeMs) {
            return MetricsReading.Unreportable({ reason: "expired", detail: `Instagram keeps a story's insights for 24 hours; story ${platformPostId} has expired` })
          }
          const reply = yield* sendJson(client.read, graph("GET", `${id}/insights?metric=${metricNames[story ? "STORY" : "FEED"]}`, token.access_token), Insights)
          const counts = new Map(reply.data.map((entry) => [entry.name, entry.values?.[0]?.value ?? entry.total_value?.value]))
          const count = (name: string) => {
            const value = counts.get(name)
            return value === undefined ? null : Math.max(0, Math.round(value))
          }
          return MetricsReading.Reported({
            metrics: {
              ...none,
              views: count("views"),
              reach: count("reach"),
              likes: count("likes"),
              comments: count("comments"),
              shares: count("shares"),
              saves: count("saved")
            }
          })
        }).pipe(
          Effect.catchIf(
            (failure) => failure._tag === "PlatformRefusal" && (failure.error.category === "not_found" || failure.error.category === "permission_missing"),
            (failure) =>
              Effect.succeed(
                failure._tag === "PlatformRefusal" && failure.error.category === "not_found"
                  ? MetricsReading.Unreportable({ reason: "deleted", detail: `Instagram holds no post ${platformPostId}` })
                  : MetricsReading.Unreportable({
                    reason: "unsupported",
                    detail: `Instagram reports no insights for ${platformPostId} to this connection: ${failure._tag === "PlatformRefusal" ? failure.error.message : ""}`
                  })
              )
          )
        )).pipe(asRead, Effect.provide(context))
  }
}
