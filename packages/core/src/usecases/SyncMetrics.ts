import { DateTime, Duration, Effect, Option } from "effect"
import type { ReportedCounts } from "../Analytics.js"
import type { PostMetrics } from "../Metrics.js"
import type { Platform } from "../Platform.js"
import { AccountStore } from "../ports/AccountStore.js"
import { MetricsSources } from "../ports/MetricsSources.js"
import { type ClaimedSync, MetricsStore, SyncOutcome, type SyncSchedule } from "../ports/MetricsStore.js"
import type { PlatformCallFailed } from "../ports/RouteAdapters.js"
import { traced } from "../Tracing.js"

export interface MetricsSyncPolicy {
  readonly schedule: SyncSchedule
  /** How long one platform read may take before it counts as no answer (tried again later). */
  readonly fetchTimeout: Duration.Duration
  /** The wait before trying again after no answer, when the platform named none (Retry-After). */
  readonly retryDelay: Duration.Duration
}

/** The contract's six counts out of everything a platform reports. */
export const reportedCounts = (metrics: PostMetrics): ReportedCounts => ({
  views: metrics.views,
  likes: metrics.likes,
  comments: metrics.comments,
  shares: metrics.shares,
  reach: metrics.reach,
  saves: metrics.saves
})

/**
 * Platforms found rate limited during one pass, with when they may be asked again. A worker's
 * other platforms go on; the pause is also written to the store so other workers respect it.
 */
export type PlatformPauses = Map<Platform, DateTime.Utc>

/** A rate limit is waited out to its Retry-After exactly; any other failure at least retryDelay. */
const retryAt = (now: DateTime.Utc, failure: PlatformCallFailed, policy: MetricsSyncPolicy): DateTime.Utc =>
  DateTime.addDuration(
    now,
    failure.error.category === "rate_limited" && failure.retryAfterMs !== null
      ? Duration.millis(failure.retryAfterMs)
      : Duration.max(Duration.millis(failure.retryAfterMs ?? 0), policy.retryDelay)
  )

/** What fetching one claimed delivery's metrics found. */
const fetchOutcome = (claim: ClaimedSync, policy: MetricsSyncPolicy, pauses: PlatformPauses) =>
  Effect.gen(function*() {
    const now = yield* DateTime.now
    const paused = pauses.get(claim.platform)
    if (paused !== undefined && DateTime.lessThan(now, paused)) return SyncOutcome.Later({ retryAt: paused })
    if (claim.platformPostId === null) {
      return SyncOutcome.Unreportable({ reason: "unsupported", detail: "the platform gave the post no id to read it by", at: now })
    }
    const accounts = yield* AccountStore.pipe(Effect.flatMap((store) => store.list(claim.projectId)))
    const account = accounts.find((candidate) => candidate.id === claim.accountId)
    if (account === undefined) return SyncOutcome.Unreportable({ reason: "deleted", detail: "the account was removed from the project", at: now })
    const source = (yield* MetricsSources).forAccount(account)
    if (Option.isNone(source)) {
      return SyncOutcome.Unreportable({ reason: "unsupported", detail: `${account.platform} reports no engagement through the ${account.route} route`, at: now })
    }
    const reading = yield* source.value.fetch({ account, platformPostId: claim.platformPostId }).pipe(
      Effect.timeoutFail({ duration: policy.fetchTimeout, onTimeout: () => "timeout" as const }),
      Effect.either
    )
    const at = yield* DateTime.now
    if (reading._tag === "Right") {
      return reading.right._tag === "Reported"
        ? SyncOutcome.Reported({ counts: reportedCounts(reading.right.metrics), at })
        : SyncOutcome.Unreportable({ reason: reading.right.reason, detail: reading.right.detail, at })
    }
    if (reading.left === "timeout") return SyncOutcome.Later({ retryAt: DateTime.addDuration(at, policy.retryDelay) })
    const later = retryAt(at, reading.left, policy)
    if (reading.left.error.category === "rate_limited") {
      pauses.set(claim.platform, later)
      yield* MetricsStore.pipe(Effect.flatMap((store) => store.pausePlatform(claim.platform, later)))
    }
    return SyncOutcome.Later({ retryAt: later })
  })

/**
 * One claimed delivery: its metrics fetched through its route's MetricsSource and the outcome
 * written (a snapshot, the reason it never will have one, or when to try again), which releases
 * the claim. Returns the outcome's tag, or "lost" when the lease lapsed before the write.
 */
export const syncDelivery = traced("syncDelivery")(function*(
  claim: ClaimedSync,
  worker: string,
  policy: MetricsSyncPolicy,
  pauses: PlatformPauses
) {
  const outcome = yield* fetchOutcome(claim, policy, pauses)
  const kept = yield* MetricsStore.pipe(Effect.flatMap((store) => store.settle(claim.deliveryId, worker, outcome, policy.schedule)))
  return kept ? outcome._tag : "lost" as const
})
