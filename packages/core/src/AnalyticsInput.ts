import { Schema } from "effect"
import { ContentFormat, RankingMetric } from "./Analytics.js"
import { Platform } from "./Platform.js"
import type { BestTimesRequest } from "./usecases/BestTimes.js"
import type { AnalyticsQuery } from "./usecases/Insights.js"
import type { TopPostsRequest } from "./usecases/TopPosts.js"

/**
 * The analytics endpoints' parameters under the contract's names, as typed values: what the SDK
 * and the MCP connector's analytics tools take (REST reads the same from query strings).
 */

export const SinceDays = Schema.Int.pipe(Schema.between(1, 365))
export const TopPostsLimit = Schema.Int.pipe(Schema.between(1, 50))

const filterFields = {
  since_days: Schema.optionalWith(SinceDays, { exact: true }),
  platform: Schema.optionalWith(Platform, { exact: true }),
  format: Schema.optionalWith(ContentFormat, { exact: true })
}

/** GET /insights's parameters. */
export const AnalyticsInput = Schema.Struct(filterFields)
export type AnalyticsInput = typeof AnalyticsInput.Type

/** GET /best-times's parameters: the filters and, beyond the contract, one account. */
export const BestTimesInput = Schema.Struct({
  ...filterFields,
  account: Schema.optionalWith(Schema.String.pipe(Schema.minLength(1)), { exact: true }).annotations({
    description: "One account's own best times (its id, platform:username or username), blended with its platform's across the " +
      "project where its own posts are few (docs/analytics.md)."
  })
})
export type BestTimesInput = typeof BestTimesInput.Type

/** GET /top-posts's parameters. */
export const TopPostsInput = Schema.Struct({
  ...filterFields,
  metric: Schema.optionalWith(RankingMetric, { exact: true }),
  limit: Schema.optionalWith(TopPostsLimit, { exact: true })
})
export type TopPostsInput = typeof TopPostsInput.Type

export const defaultInsightsDays = 30
export const defaultBestTimesDays = 90
export const defaultTopPostsLimit = 10

/** The parameters with the contract's defaults applied. */
export const analyticsQueryOf = (input: AnalyticsInput, defaultDays: number): AnalyticsQuery => ({
  sinceDays: input.since_days ?? defaultDays,
  platform: input.platform ?? null,
  format: input.format ?? null
})

export const bestTimesRequestOf = (input: BestTimesInput): BestTimesRequest => ({
  ...analyticsQueryOf(input, defaultBestTimesDays),
  account: input.account ?? null
})

export const topPostsRequestOf = (input: TopPostsInput): TopPostsRequest => ({
  ...analyticsQueryOf(input, defaultInsightsDays),
  metric: input.metric ?? "engagement",
  limit: input.limit ?? defaultTopPostsLimit
})
