import { Effect } from "effect"
import type { RankingMetric, TopPosts } from "../Analytics.js"
import { requireScope } from "../Authorization.js"
import type { Principal } from "../Principal.js"
import { MetricsStore } from "../ports/MetricsStore.js"
import { traced } from "../Tracing.js"
import { type AnalyticsQuery, analyticsFilter } from "./Insights.js"

export interface TopPostsRequest extends AnalyticsQuery {
  readonly metric: RankingMetric
  /** 1-50. */
  readonly limit: number
}

/** GET /top-posts: the window's posts ranked by one metric, highest first, nulls last, ties newest first. */
export const topPosts = traced("topPosts")(function*(principal: Principal, request: TopPostsRequest) {
  yield* requireScope(principal, "posts:read")
  const filter = yield* analyticsFilter(request)
  const data = yield* MetricsStore.pipe(
    Effect.flatMap((store) => store.topPosts(principal.projectId, { ...filter, metric: request.metric, limit: request.limit }))
  )
  return { metric: request.metric, since_days: request.sinceDays, data } satisfies TopPosts
})
