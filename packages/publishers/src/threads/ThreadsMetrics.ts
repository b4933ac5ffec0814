/**
 * A Threads post's engagement from GET /{media-id}/insights (threads_manage_insights). Threads'
 * names against Herald's (docs/networks/threads.md): views → views, likes → likes, replies →
 * comments, reposts + quotes + shares → shares (as X's and Bluesky's reposts and quotes are);
 * Threads reports no reach, saves or clicks per post (null, never zero).
 */
import { MetricsReading, type MetricsSource, type PostMetrics } from "@herald/core"
import { type Context, Effect, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { graph, sendJson } from "./ThreadsApi.js"
import { type Needs, withToken } from "./ThreadsToken.js"

const Insights = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    name: Schema.String,
    values: Schema.optional(Schema.Array(Schema.Struct({ value: Schema.Number }))),
    total_value: Schema.optional(Schema.Struct({ value: Schema.Number }))
  }))
})

const metricNames = "views,likes,replies,reposts,quotes,shares"

const none: PostMetrics = { views: null, reach: null, likes: null, comments: null, shares: null, saves: null, clicks: null, videoViews: null }

export const threadsMetrics = (client: PlatformClient, context: Context.Context<Needs>): MetricsSource => ({
  fetch: ({ account, platformPostId }) =>
    withToken(account, (token) =>
      sendJson(client.read, graph("GET", `${encodeURIComponent(platformPostId)}/insights?metric=${metricNames}`, token.access_token), Insights).pipe(
        Effect.map((reply): MetricsReading => {
          const counts = new Map(reply.data.map((entry) => [entry.name, entry.values?.[0]?.value ?? entry.total_value?.value]))
          const count = (name: string) => {
            const value = counts.get(name)
            return value === undefined ? null : Math.max(0, Math.round(value))
          }
          // A repost's facade (REPOST_FACADE) answers an empty list: nothing of its own to report.
          if (reply.data.length === 0) return MetricsReading.Unreportable({ reason: "unsupported", detail: `Threads reports no insights for ${platformPostId}` })
          const shared = [count("reposts"), count("quotes"), count("shares")].filter((value): value is number => value !== null)
          return MetricsReading.Reported({
            metrics: {
              ...none,
              views: count("views"),
              likes: count("likes"),
              comments: count("replies"),
              shares: shared.length === 0 ? null : shared.reduce((sum, value) => sum + value, 0)
            }
          })
        }),
        Effect.catchIf(
          (failure) => failure._tag === "PlatformRefusal" && (failure.error.category === "not_found" || failure.error.category === "permission_missing"),
          (failure) =>
            Effect.succeed(
              failure._tag === "PlatformRefusal" && failure.error.category === "not_found"
                ? MetricsReading.Unreportable({ reason: "deleted", detail: `Threads holds no post ${platformPostId}` })
                : MetricsReading.Unreportable({ reason: "unsupported", detail: "Threads reports insights only to connections granted threads_manage_insights" })
            )
        )
      )).pipe(asRead, Effect.provide(context))
})
