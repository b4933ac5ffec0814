import { DeliveryMetricsHistory, metricsHistoryOfPost, metricsOfPost, PostMetricsReply } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"
import { PostIdInput } from "./PostIdInput.js"

/** GET /metrics's body; with history, GET /metrics/history's rows beside it. */
const PostMetricsWithHistory = Schema.Struct({
  ...PostMetricsReply.fields,
  history: Schema.optional(Schema.Array(DeliveryMetricsHistory).annotations({
    description: "With history true: each delivery's numbers over time (GET /metrics/history's data), a point per sync that changed them."
  }))
}).annotations({ identifier: "PostMetricsWithHistory" })
type PostMetricsWithHistory = typeof PostMetricsWithHistory.Type

/** GET /metrics (and GET /metrics/history when asked). */
export const getPostMetrics = tool({
  name: "get_post_metrics",
  title: "Get a post's engagement metrics",
  description:
    "Per delivery of a post: views, likes, comments, shares, reach, saves, engagement and the live URL. A null metric means " +
    "the platform does not report it (not zero); empty data means not synced yet (refresh roughly every 6 hours). " +
    "history: true adds each delivery's numbers over time. " +
    "post_not_found when the id is not a post of this project. Needs posts:read.",
  input: Schema.Struct({
    post_id: PostIdInput,
    history: Schema.optional(Schema.Boolean.annotations({ description: "Also answer the numbers over time (default false)." }))
  }),
  output: PostMetricsWithHistory,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) =>
    Effect.catchAll(
      Effect.gen(function*() {
        const latest = yield* metricsOfPost(principal, input.post_id)
        const reply: PostMetricsWithHistory = input.history === true
          ? { ...latest, history: (yield* metricsHistoryOfPost(principal, input.post_id)).data }
          : latest
        return reply
      }),
      refuse
    ),
  text: (reply) =>
    reply.data.length === 0
      ? `Post ${reply.post_id}: no metrics synced yet.`
      : `Post ${reply.post_id}: metrics for ${reply.data.length} deliver${reply.data.length === 1 ? "y" : "ies"}` +
        (reply.history === undefined ? "." : `, with ${reply.history.reduce((n, row) => n + row.points.length, 0)} points over time.`)
})
