import { bestTimes, BestTimes, BestTimesInput, bestTimesRequestOf, defaultBestTimesDays } from "@herald/core"
import { Effect } from "effect"
import { refuse, tool } from "../Tool.js"

/** GET /best-times. */
export const getBestTimes = tool({
  name: "get_best_times",
  title: "Get the best times to post",
  description:
    "Mean engagement per weekday and UTC hour of publishing, with how many posts each slot rests on. signal none: no " +
    "engagement recorded (order meaningless); thin: a slot rests on one or two posts; ok: three or more each. " +
    `since_days 1 to 365 (default ${defaultBestTimesDays}), platform, format. account: one account's own best times, ` +
    "blended with its platform's across the project where its own posts are few (each slot's own_weight says how much is its own). " +
    "Needs posts:read.",
  input: BestTimesInput.annotations({ examples: [{ platform: "x", since_days: 90 }, { account: "x:acme" }] }),
  output: BestTimes,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) => Effect.catchAll(bestTimes(principal, bestTimesRequestOf(input)), refuse),
  text: (reply) => `signal ${reply.signal}: ${reply.slots.length} slot(s).`
})
