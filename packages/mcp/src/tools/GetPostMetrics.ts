import { metricsOfPost, PostId, PostMetricsReply } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"

/** GET /metrics. */
export const getPostMetrics = tool({
  name: "get_post_metrics",
  title: "Get a post's engagement metrics",
  description:
    "Per delivery of a post: views, likes, comments, shares, reach, saves, engagement and the live URL. A null metric means " +
    "the platform does not report it (not zero); empty data means not synced yet (refresh roughly every 6 hours). " +
    "post_not_found when the id is not a post of this project. Needs posts:read.",
  input: Schema.Struct({
    post_id: PostId.annotations({ description: "The post's id (from create_post or list_posts)." })
  }),
  output: PostMetricsReply,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) => Effect.catchAll(metricsOfPost(principal, input.post_id), refuse),
  text: (reply) =>
    reply.data.length === 0
      ? `Post ${reply.post_id}: no metrics synced yet.`
      : `Post ${reply.post_id}: metrics for ${reply.data.length} deliver${reply.data.length === 1 ? "y" : "ies"}.`
})
