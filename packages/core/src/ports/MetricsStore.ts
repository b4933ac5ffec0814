import { Context, Data, type DateTime, type Duration, type Effect } from "effect"
import type {
  AnalyticsFilter,
  BestTimesFilter,
  DeliveryMetrics,
  InsightsFigures,
  MetricsSnapshot,
  ReportedCounts,
  SlotCell,
  TopPost,
  TopPostsQuery,
  UnreportableReason
} from "../Analytics.js"
import type { AccountId, DeliveryId, PostId, ProjectId } from "../Ids.js"
import type { Platform } from "../Platform.js"

/** When a delivery's metrics are fetched: `firstAfter` its publishing, then every `every`, until `lastAfter` its publishing. */
export interface SyncSchedule {
  readonly firstAfter: Duration.Duration
  readonly every: Duration.Duration
  readonly lastAfter: Duration.Duration
}

export interface SyncClaimRequest {
  readonly now: DateTime.Utc
  readonly limit: number
  /** How long the claim holds; a worker that dies lets it lapse and another takes the delivery. */
  readonly leaseMillis: number
  readonly worker: string
  readonly schedule: SyncSchedule
}

/** A delivery whose metrics are due, held by the claiming worker's lease. */
export interface ClaimedSync {
  readonly deliveryId: DeliveryId
  readonly projectId: ProjectId
  readonly accountId: AccountId
  readonly platform: Platform
  readonly platformPostId: string | null
  readonly publishedAt: DateTime.Utc
}

/**
 * What one sync found. Reported: a snapshot, and the next sync per the schedule (none past its
 * end). Unreportable: no numbers, ever; never synced again. Later: no answer now (a rate limit, a
 * network down); tried again at `retryAt`.
 */
export type SyncOutcome = Data.TaggedEnum<{
  Reported: { readonly counts: ReportedCounts; readonly at: DateTime.Utc }
  Unreportable: { readonly reason: UnreportableReason; readonly detail: string; readonly at: DateTime.Utc }
  Later: { readonly retryAt: DateTime.Utc }
}>
export const SyncOutcome = Data.taggedEnum<SyncOutcome>()

/**
 * The metrics of the deliveries that went out: which are due a sync (under leases, like the
 * publishing queue), their snapshots, and the roll-ups of the analytics endpoints. A delivery
 * enters when it succeeds (publishing time and format fixed then) and becomes unreportable with
 * reason deleted when taken down.
 */
export class MetricsStore extends Context.Tag("@herald/core/MetricsStore")<MetricsStore, {
  /**
   * Deliveries due a sync, oldest due first: never synced and `firstAfter` past publishing, or
   * past their next sync time; within `lastAfter` of publishing; not unreportable; platform not
   * paused; no live lease. Concurrent claimers never take one delivery twice.
   */
  readonly claimDue: (request: SyncClaimRequest) => Effect.Effect<ReadonlyArray<ClaimedSync>>
  /** Writes one sync's outcome and releases the lease; false (nothing written) when the worker no longer holds it. */
  readonly settle: (deliveryId: DeliveryId, worker: string, outcome: SyncOutcome, schedule: SyncSchedule) => Effect.Effect<boolean>
  /** No claims for this platform until `until` (its rate limit), for every worker. */
  readonly pausePlatform: (platform: Platform, until: DateTime.Utc) => Effect.Effect<void>
  /**
   * The snapshots of one delivery, oldest first: one per sync whose numbers differ from the one
   * before (a sync finding the same numbers moves only synced_at). Kept while the delivery is: the
   * schedule's `lastAfter` ends its syncs, so a series has at most lastAfter / every points.
   */
  readonly history: (deliveryId: DeliveryId) => Effect.Effect<ReadonlyArray<MetricsSnapshot>>
  /** GET /metrics rows of one post of the project: its deliveries synced at least once. */
  readonly ofPost: (projectId: ProjectId, postId: PostId) => Effect.Effect<ReadonlyArray<DeliveryMetrics>>
  readonly insights: (projectId: ProjectId, filter: AnalyticsFilter) => Effect.Effect<InsightsFigures>
  readonly topPosts: (projectId: ProjectId, query: TopPostsQuery) => Effect.Effect<ReadonlyArray<TopPost>>
  /** The weekday × hour cells of the window's posts with engagement recorded (best times' slots before ranking). */
  readonly bestTimes: (projectId: ProjectId, filter: BestTimesFilter) => Effect.Effect<ReadonlyArray<SlotCell>>
}>() {}
