import { requireScope } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"
import { BestTimesReply, formatFilter, noMetricsYet, platformFilter, sinceDays } from "./Analytics.js"

/** GET /best-times. */
export const getBestTimes = tool({
  name: "get_best_times",
  title: "Get the best times to post",
  description:
    "Weekday and UTC hour slots ranked by average engagement, with how many posts each rests on. signal none means no " +
    "engagement is recorded and the order means nothing. Needs posts:read.",
  input: Schema.Struct({ platform: platformFilter, format: formatFilter, since_days: sinceDays(90) }),
  output: BestTimesReply,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal) =>
    requireScope(principal, "posts:read").pipe(Effect.as({ signal: "none" as const, slots: [] }), Effect.catchAll(refuse)),
  text: () => `signal none: no engagement recorded. ${noMetricsYet}`
})
