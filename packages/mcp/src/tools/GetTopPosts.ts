import { requireScope } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"
import { formatFilter, metricNames, noMetricsYet, platformFilter, sinceDays, TopPostsReply } from "./Analytics.js"

/** GET /top-posts. */
export const getTopPosts = tool({
  name: "get_top_posts",
  title: "Get the best-performing posts",
  description: "Posts ranked by one metric over a window, best first. Needs posts:read.",
  input: Schema.Struct({
    metric: Schema.optional(Schema.Literal(...metricNames).annotations({ description: "What to rank by (default engagement)." })),
    since_days: sinceDays(30),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 50)).annotations({ description: "1 to 50 (default 10).", examples: [10] })),
    platform: platformFilter,
    format: formatFilter
  }),
  output: TopPostsReply,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) =>
    requireScope(principal, "posts:read").pipe(
      Effect.as({ metric: input.metric ?? "engagement", since_days: input.since_days ?? 30, data: [] }),
      Effect.catchAll(refuse)
    ),
  text: () => `No ranked posts. ${noMetricsYet}`
})
