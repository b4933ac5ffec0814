import { DateTime, Effect } from "effect"
import { type ContentFormat, type Insights, windowStart } from "../Analytics.js"
import { requireScope } from "../Authorization.js"
import type { Platform } from "../Platform.js"
import type { Principal } from "../Principal.js"
import { MetricsStore } from "../ports/MetricsStore.js"
import { traced } from "../Tracing.js"

/** The analytics endpoints' common query, validated (since_days 1-365, a platform key, a format). */
export interface AnalyticsQuery {
  readonly sinceDays: number
  readonly platform: Platform | null
  readonly format: ContentFormat | null
}

export const analyticsFilter = (query: AnalyticsQuery) =>
  Effect.map(DateTime.now, (now) => ({ since: windowStart(now, query.sinceDays), platform: query.platform, format: query.format }))

/** GET /insights: what went out in the window, its totals per platform, and how much of it has numbers. */
export const insights = traced("insights")(function*(principal: Principal, query: AnalyticsQuery) {
  yield* requireScope(principal, "posts:read")
  const filter = yield* analyticsFilter(query)
  const figures = yield* MetricsStore.pipe(Effect.flatMap((store) => store.insights(principal.projectId, filter)))
  return { since_days: query.sinceDays, platform: query.platform, format: query.format, ...figures } satisfies Insights
})
