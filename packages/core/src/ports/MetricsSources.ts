import { Context, Data, type Effect, Layer, Option } from "effect"
import type { SocialAccount } from "../Account.js"
import type { PostMetrics } from "../Metrics.js"
import { byRoute, type PlatformCallFailed, type RouteAdapters } from "./RouteAdapters.js"

/** One delivery that went out, as its metrics are read. */
export interface MetricsRequest {
  readonly account: SocialAccount
  readonly platformPostId: string
}

/**
 * What the platform said about a post's engagement: its counts, or why it has none and never will
 * (removed from the platform, past the window in which the platform reports, or a kind of post it
 * reports nothing on).
 */
export type MetricsReading = Data.TaggedEnum<{
  Reported: { readonly metrics: PostMetrics }
  Unreportable: { readonly reason: "deleted" | "expired" | "unsupported"; readonly detail: string }
}>
export const MetricsReading = Data.taggedEnum<MetricsReading>()

/** Engagement of posts published to one network through one connection route. */
export interface MetricsSource {
  readonly fetch: (request: MetricsRequest) => Effect.Effect<MetricsReading, PlatformCallFailed>
}

/** The metrics source of each (platform, route) that has one. */
export class MetricsSources extends Context.Tag("@herald/core/MetricsSources")<MetricsSources, {
  /** None: the account's route reports no engagement in this build. */
  readonly forAccount: (account: SocialAccount) => Option.Option<MetricsSource>
}>() {
  static readonly layer = (adapters: ReadonlyArray<RouteAdapters>): Layer.Layer<MetricsSources> =>
    Layer.sync(MetricsSources, () => {
      const sourceOf = byRoute(adapters, (entry) => entry.metrics)
      return MetricsSources.of({ forAccount: (account) => Option.fromNullable(sourceOf(account)) })
    })
}
