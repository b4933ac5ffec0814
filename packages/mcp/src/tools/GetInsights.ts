import { AnalyticsInput, analyticsQueryOf, defaultInsightsDays, insights, Insights } from "@herald/core"
import { Effect } from "effect"
import { refuse, tool } from "../Tool.js"

/** GET /insights. */
export const getInsights = tool({
  name: "get_insights",
  title: "Get engagement insights",
  description:
    "Roll-up over a window: posts, deliveries, metric totals, by_platform, and coverage (with_metrics + unreportable + " +
    `awaiting = deliveries; ever_delivered ignores the window and filters). since_days 1 to 365 (default ${defaultInsightsDays}), ` +
    "platform (a platform key), format (feed, reel or story; story returns zero totals). Needs posts:read.",
  input: AnalyticsInput.annotations({ examples: [{ since_days: 7, platform: "instagram" }] }),
  output: Insights,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) => Effect.catchAll(insights(principal, analyticsQueryOf(input, defaultInsightsDays)), refuse),
  text: (reply) => `${reply.posts} post(s), ${reply.deliveries} deliver${reply.deliveries === 1 ? "y" : "ies"} in ${reply.since_days} days.`
})
