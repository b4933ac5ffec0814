import { requireScope } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"
import { emptyTotals, formatFilter, InsightsReply, noMetricsYet, platformFilter, sinceDays } from "./Analytics.js"

/** GET /insights. */
export const getInsights = tool({
  name: "get_insights",
  title: "Get engagement insights",
  description:
    "Roll-up over a window: posts, deliveries, metric totals, by_platform, and coverage (with_metrics + unreportable + " +
    "awaiting = deliveries; ever_delivered ignores the window and filters). format story returns zero totals. Needs posts:read.",
  input: Schema.Struct({ since_days: sinceDays(30), platform: platformFilter, format: formatFilter }),
  output: InsightsReply,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal) =>
    requireScope(principal, "posts:read").pipe(
      Effect.as({
        posts: 0,
        deliveries: 0,
        totals: emptyTotals,
        by_platform: [],
        coverage: { deliveries: 0, with_metrics: 0, unreportable: 0, awaiting: 0, unsupported: 0, ever_delivered: 0 }
      }),
      Effect.catchAll(refuse)
    ),
  text: () => `No insights. ${noMetricsYet}`
})
