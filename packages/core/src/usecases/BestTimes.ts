import { Effect } from "effect"
import type { BestTimes } from "../Analytics.js"
import { requireScope } from "../Authorization.js"
import type { Principal } from "../Principal.js"
import { MetricsStore } from "../ports/MetricsStore.js"
import { traced } from "../Tracing.js"
import { type AnalyticsQuery, analyticsFilter } from "./Insights.js"

/** GET /best-times: mean engagement per weekday and hour (UTC) of publishing, with how much to trust it. */
export const bestTimes = traced("bestTimes")(function*(principal: Principal, query: AnalyticsQuery) {
  yield* requireScope(principal, "posts:read")
  const filter = yield* analyticsFilter(query)
  const found = yield* MetricsStore.pipe(Effect.flatMap((store) => store.bestTimes(principal.projectId, filter)))
  return { signal: found.signal, since_days: query.sinceDays, slots: found.slots } satisfies BestTimes
})
