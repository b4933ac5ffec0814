import { DateTime, Schema } from "effect"
import { Timestamp } from "./Timestamp.js"
import type { Delivery } from "./Delivery.js"
import { AccountId, DeliveryId, PostId, type ProjectId } from "./Ids.js"
import { type Placement, Platform } from "./Platform.js"

/**
 * The analytics rules of the contract (Metrics, Insights reply, Best-times reply) as pure
 * functions over the deliveries that went out. The in-memory store answers with them directly;
 * the PostgreSQL store computes the same in SQL, and the storage contract checks the two agree.
 */

/** What kind of post a delivery is, from its placement: the `format` filter of the analytics endpoints. */
export const ContentFormat = Schema.Literal("feed", "reel", "story")
export type ContentFormat = typeof ContentFormat.Type

/** timeline → feed, reels → reel, stories → story; a platform without placements posts to its feed. */
export const formatOfPlacement = (placement: Placement | null | undefined): ContentFormat =>
  placement === "reels" ? "reel" : placement === "stories" ? "story" : "feed"

/** The counts the contract names per delivery. null: the platform does not report it (never 0 in its place). */
export const ReportedCounts = Schema.Struct({
  views: Schema.NullOr(Schema.NonNegativeInt),
  likes: Schema.NullOr(Schema.NonNegativeInt),
  comments: Schema.NullOr(Schema.NonNegativeInt),
  shares: Schema.NullOr(Schema.NonNegativeInt),
  reach: Schema.NullOr(Schema.NonNegativeInt),
  saves: Schema.NullOr(Schema.NonNegativeInt)
})
export type ReportedCounts = typeof ReportedCounts.Type

/** Whether two syncs found the same numbers (a history keeps a point only when they changed). */
export const sameCounts = (a: ReportedCounts, b: ReportedCounts): boolean =>
  a.views === b.views && a.likes === b.likes && a.comments === b.comments && a.shares === b.shares && a.reach === b.reach &&
  a.saves === b.saves

/** The metrics GET /top-posts ranks by. */
export const RankingMetric = Schema.Literal("engagement", "views", "likes", "comments", "shares", "reach", "saves")
export type RankingMetric = typeof RankingMetric.Type
export const rankingMetrics: ReadonlyArray<RankingMetric> = RankingMetric.literals

/** engagement = likes + comments + shares + saves over those the platform reports; null when it reports none of them. */
export const engagementOf = (counts: ReportedCounts): number | null => {
  const parts = [counts.likes, counts.comments, counts.shares, counts.saves].filter((value): value is number => value !== null)
  return parts.length === 0 ? null : parts.reduce((sum, value) => sum + value, 0)
}

export const metricOf = (counts: ReportedCounts, metric: RankingMetric): number | null =>
  metric === "engagement" ? engagementOf(counts) : counts[metric]

/** Why a delivery will never have numbers: removed, past the platform's reporting window, or a kind it never reports on. */
export const UnreportableReason = Schema.Literal("deleted", "expired", "unsupported")
export type UnreportableReason = typeof UnreportableReason.Type

/** One fetch of a delivery's counts: the time series plots are drawn from. */
export interface MetricsSnapshot {
  readonly counts: ReportedCounts
  readonly takenAt: DateTime.Utc
}

/** A delivery that went out, with what its sync has found so far. */
export interface TrackedDelivery {
  readonly deliveryId: DeliveryId
  readonly postId: PostId
  readonly projectId: ProjectId
  readonly accountId: AccountId
  readonly platform: Platform
  readonly username: string
  readonly format: ContentFormat
  readonly publishedAt: DateTime.Utc
  readonly url: string | null
  /** The newest snapshot; null until the first sync that found numbers. */
  readonly latest: MetricsSnapshot | null
  /** Set once the platform said there will be no numbers. */
  readonly unreportable: { readonly reason: UnreportableReason; readonly detail: string; readonly at: DateTime.Utc } | null
}

/** When a delivery went out: its successful (or reconciled) attempt's end, else its last change. */
export const publishedAtOf = (delivery: Delivery): DateTime.Utc => {
  for (let index = delivery.attempts.length - 1; index >= 0; index--) {
    const attempt = delivery.attempts[index]!
    if ((attempt.outcome === "success" || attempt.outcome === "reconciled") && attempt.finishedAt !== null) return attempt.finishedAt
  }
  return delivery.updatedAt
}

// ---------------------------------------------------------------------------------------------
// Coverage
// ---------------------------------------------------------------------------------------------

export type CoverageClass = "with_metrics" | "unreportable" | "awaiting"

/**
 * Each delivery is in exactly one class, so with_metrics + unreportable + awaiting = deliveries.
 * A story is unreportable whatever was fetched (the story rule: format=story has zero totals);
 * numbers fetched before a post was removed still count.
 */
export const coverageClass = (delivery: TrackedDelivery): CoverageClass =>
  delivery.format === "story" ? "unreportable"
  : delivery.latest !== null ? "with_metrics"
  : delivery.unreportable !== null ? "unreportable"
  : "awaiting"

/** Unreportable because of what the post is, not what happened to it: a story, or a kind its platform never reports on. */
export const isUnsupported = (delivery: TrackedDelivery): boolean =>
  delivery.format === "story" || (coverageClass(delivery) === "unreportable" && delivery.unreportable?.reason === "unsupported")

/** The counts a delivery contributes: its latest snapshot's, when it counts as with_metrics. */
export const countsOf = (delivery: TrackedDelivery): ReportedCounts | null =>
  coverageClass(delivery) === "with_metrics" ? delivery.latest!.counts : null

// ---------------------------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------------------------

export interface AnalyticsFilter {
  /** Deliveries published at or after this instant. */
  readonly since: DateTime.Utc
  readonly platform: Platform | null
  readonly format: ContentFormat | null
}

export const matches = (filter: AnalyticsFilter) => (delivery: TrackedDelivery): boolean =>
  !DateTime.lessThan(delivery.publishedAt, filter.since) &&
  (filter.platform === null || delivery.platform === filter.platform) &&
  (filter.format === null || delivery.format === filter.format)

/** `sinceDays` whole days before `now`. */
export const windowStart = (now: DateTime.Utc, sinceDays: number): DateTime.Utc => DateTime.subtract(now, { days: sinceDays })

// ---------------------------------------------------------------------------------------------
// Insights
// ---------------------------------------------------------------------------------------------

const countFields = { views: Schema.Int, likes: Schema.Int, comments: Schema.Int, shares: Schema.Int, reach: Schema.Int, saves: Schema.Int, engagement: Schema.Int }

export const MetricTotals = Schema.Struct(countFields).annotations({
  identifier: "MetricTotals",
  description: "Sums over the deliveries with metrics; a metric no platform reported sums to 0."
})
export type MetricTotals = typeof MetricTotals.Type

export const Coverage = Schema.Struct({
  deliveries: Schema.Int,
  with_metrics: Schema.Int.annotations({ description: "Deliveries the totals are built from." }),
  unreportable: Schema.Int.annotations({ description: "No numbers, ever (deleted, expired, or a kind the platform never reports on)." }),
  awaiting: Schema.Int.annotations({ description: "Not in yet." }),
  unsupported: Schema.Int.annotations({ description: "The part of unreportable that is a kind the platform never reports on (stories among them)." }),
  ever_delivered: Schema.Int.annotations({ description: "Deliveries that ever went out in this project, ignoring the window and every filter." })
}).annotations({ identifier: "Coverage", description: "with_metrics + unreportable + awaiting = deliveries, always." })
export type Coverage = typeof Coverage.Type

export const PlatformInsights = Schema.Struct({
  posts: Schema.Int,
  deliveries: Schema.Int,
  with_metrics: Schema.Int,
  totals: MetricTotals
}).annotations({ identifier: "PlatformInsights" })

export const Insights = Schema.Struct({
  since_days: Schema.Int,
  platform: Schema.NullOr(Platform),
  format: Schema.NullOr(ContentFormat),
  posts: Schema.Int.annotations({ description: "Posts with at least one delivery in the window." }),
  deliveries: Schema.Int.annotations({ description: "Deliveries that went out in the window." }),
  totals: MetricTotals,
  by_platform: Schema.Record({ key: Schema.String, value: PlatformInsights }).annotations({
    description: "Keyed by platform key, each platform with deliveries in the window."
  }),
  coverage: Coverage
}).annotations({ identifier: "Insights" })
export type Insights = typeof Insights.Type

/** What the store answers for an insights query; the use case adds the echo of the query. */
export type InsightsFigures = Omit<Insights, "since_days" | "platform" | "format">

const zeroTotals = (): { -readonly [K in keyof MetricTotals]: number } => ({ views: 0, likes: 0, comments: 0, shares: 0, reach: 0, saves: 0, engagement: 0 })

const addCounts = (totals: { -readonly [K in keyof MetricTotals]: number }, counts: ReportedCounts) => {
  totals.views += counts.views ?? 0
  totals.likes += counts.likes ?? 0
  totals.comments += counts.comments ?? 0
  totals.shares += counts.shares ?? 0
  totals.reach += counts.reach ?? 0
  totals.saves += counts.saves ?? 0
  totals.engagement += engagementOf(counts) ?? 0
}

const rollUp = (deliveries: ReadonlyArray<TrackedDelivery>) => {
  const totals = zeroTotals()
  let withMetrics = 0
  for (const delivery of deliveries) {
    const counts = countsOf(delivery)
    if (counts === null) continue
    withMetrics++
    addCounts(totals, counts)
  }
  return { posts: new Set(deliveries.map((delivery) => delivery.postId)).size, deliveries: deliveries.length, with_metrics: withMetrics, totals }
}

/** GET /insights over every delivery of one project (`all`), the window and filters applied here. */
export const insightsOf = (all: ReadonlyArray<TrackedDelivery>, filter: AnalyticsFilter): InsightsFigures => {
  const inWindow = all.filter(matches(filter))
  const { deliveries, posts, totals, with_metrics } = rollUp(inWindow)
  const byPlatform: Record<string, typeof PlatformInsights.Type> = {}
  for (const platform of [...new Set(inWindow.map((delivery) => delivery.platform))].sort()) {
    byPlatform[platform] = rollUp(inWindow.filter((delivery) => delivery.platform === platform))
  }
  const unreportable = inWindow.filter((delivery) => coverageClass(delivery) === "unreportable").length
  return {
    posts,
    deliveries,
    totals,
    by_platform: byPlatform,
    coverage: {
      deliveries,
      with_metrics,
      unreportable,
      awaiting: deliveries - with_metrics - unreportable,
      unsupported: inWindow.filter(isUnsupported).length,
      ever_delivered: all.length
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Top posts
// ---------------------------------------------------------------------------------------------

export const TopPost = Schema.Struct({
  post_id: PostId,
  value: Schema.NullOr(Schema.Int).annotations({
    description: "The metric summed over the post's deliveries that report it; null when none does (yet)."
  }),
  published_at: Timestamp.annotations({ description: "When its first delivery in the window went out (UTC)." }),
  platforms: Schema.Array(Platform),
  deliveries: Schema.Int
}).annotations({ identifier: "TopPost" })
export type TopPost = typeof TopPost.Type

export const TopPosts = Schema.Struct({
  metric: RankingMetric,
  since_days: Schema.Int,
  data: Schema.Array(TopPost).annotations({ description: "Highest value first, nulls last, ties newest first." })
}).annotations({ identifier: "TopPosts" })
export type TopPosts = typeof TopPosts.Type

export interface TopPostsQuery extends AnalyticsFilter {
  readonly metric: RankingMetric
  readonly limit: number
}

/** Descending by value, nulls last; ties newest first, then by post id so the order is total. */
export const compareTopPosts = (a: TopPost, b: TopPost): number => {
  if (a.value !== b.value) {
    if (a.value === null) return 1
    if (b.value === null) return -1
    return b.value - a.value
  }
  if (a.published_at !== b.published_at) return a.published_at < b.published_at ? 1 : -1
  return a.post_id < b.post_id ? 1 : a.post_id > b.post_id ? -1 : 0
}

const sortedUnique = <A extends string>(values: ReadonlyArray<A>): Array<A> => [...new Set(values)].sort()

/** Each delivery of `deliveries` grouped by its post, in first-seen order. */
const byPost = (deliveries: ReadonlyArray<TrackedDelivery>): Map<PostId, Array<TrackedDelivery>> => {
  const groups = new Map<PostId, Array<TrackedDelivery>>()
  for (const delivery of deliveries) {
    const group = groups.get(delivery.postId)
    if (group === undefined) groups.set(delivery.postId, [delivery])
    else group.push(delivery)
  }
  return groups
}

const earliest = (deliveries: ReadonlyArray<TrackedDelivery>): DateTime.Utc =>
  deliveries.reduce((first, delivery) => DateTime.lessThan(delivery.publishedAt, first) ? delivery.publishedAt : first, deliveries[0]!.publishedAt)

/** GET /top-posts: the posts with deliveries in the window, ranked by one metric. */
export const topPostsOf = (all: ReadonlyArray<TrackedDelivery>, query: TopPostsQuery): ReadonlyArray<TopPost> => {
  const rows: Array<TopPost> = []
  for (const [postId, deliveries] of byPost(all.filter(matches(query)))) {
    const values = deliveries.flatMap((delivery) => {
      const counts = countsOf(delivery)
      const value = counts === null ? null : metricOf(counts, query.metric)
      return value === null ? [] : [value]
    })
    rows.push({
      post_id: postId,
      value: values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0),
      published_at: DateTime.formatIso(earliest(deliveries)),
      platforms: sortedUnique(deliveries.map((delivery) => delivery.platform)),
      deliveries: deliveries.length
    })
  }
  return rows.sort(compareTopPosts).slice(0, query.limit)
}

// ---------------------------------------------------------------------------------------------
// Best times
// ---------------------------------------------------------------------------------------------

/** Monday first, as ISO weekdays count. */
export const weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const
export const Weekday = Schema.Literal(...weekdays)
export type Weekday = typeof Weekday.Type

export const BestTimeSlot = Schema.Struct({
  weekday: Weekday,
  hour_utc: Schema.Int.pipe(Schema.between(0, 23)),
  avg_engagement: Schema.Number.annotations({ description: "Mean engagement of the slot's posts, to two decimals." }),
  samples: Schema.Int.annotations({
    description: "Posts published in this weekday and hour (UTC) with engagement recorded. With account: the posts the figure rests on " +
      "(the account's own when own_weight is 1, else the platform's across the project)."
  }),
  own_samples: Schema.optionalWith(Schema.Int, { exact: true }).annotations({
    description: "With account only: the account's own posts in this slot."
  }),
  own_weight: Schema.optionalWith(Schema.Number, { exact: true }).annotations({
    description: "With account only: how much of avg_engagement is the account's own (0 to 1, min(own_samples, 3) / 3; " +
      "1 when the platform has no other data for the slot), the rest its platform's mean across the project."
  })
}).annotations({ identifier: "BestTimeSlot" })
export type BestTimeSlot = typeof BestTimeSlot.Type

export const Signal = Schema.Literal("none", "thin", "ok").annotations({
  description: "none: no engagement recorded, the order means nothing; thin: a slot rests on one or two posts; ok: every slot has three or more."
})
export type Signal = typeof Signal.Type

export const BestTimes = Schema.Struct({
  signal: Signal,
  since_days: Schema.Int,
  account: Schema.optionalWith(AccountId, { exact: true }).annotations({
    description: "With account only: the account whose own best times these are, blended with its platform's where thin."
  }),
  slots: Schema.Array(BestTimeSlot).annotations({ description: "Slots with at least one sample, highest avg_engagement first." })
}).annotations({ identifier: "BestTimes" })
export type BestTimes = typeof BestTimes.Type

/** One post as best-times sees it: when it went out and the engagement of its deliveries that report one. */
export interface EngagementSample {
  readonly publishedAt: DateTime.Utc
  readonly engagement: number
}

/** The mean to two decimals, as the SQL store rounds it (sum × 100 / n, rounded half up, / 100). */
export const meanToCents = (sum: number, samples: number): number => Math.round((sum * 100) / samples) / 100

/** none when no sample has any engagement; ok when every slot has three or more samples; thin otherwise. */
export const signalOf = (slots: ReadonlyArray<BestTimeSlot>): Signal =>
  slots.every((slot) => slot.avg_engagement === 0) ? "none"
  : slots.every((slot) => slot.samples >= 3) ? "ok"
  : "thin"

/** Highest mean first; then the better-sampled slot; then calendar order, so the order is total. */
export const compareSlots = (a: BestTimeSlot, b: BestTimeSlot): number =>
  b.avg_engagement - a.avg_engagement || b.samples - a.samples ||
  weekdays.indexOf(a.weekday) - weekdays.indexOf(b.weekday) || a.hour_utc - b.hour_utc

/** The engagement of the posts published in one weekday (0 = Monday) and hour (UTC). */
export interface SlotCell {
  readonly weekday: number
  readonly hour: number
  readonly sum: number
  readonly samples: number
}

/** The slots of the cells with samples, best first. */
export const slotsOfCells = (cells: ReadonlyArray<SlotCell>): Array<BestTimeSlot> =>
  cells.filter((cell) => cell.samples > 0).map((cell) => ({
    weekday: weekdays[cell.weekday]!,
    hour_utc: cell.hour,
    avg_engagement: meanToCents(cell.sum, cell.samples),
    samples: cell.samples
  })).sort(compareSlots)

/** The weekday × hour cells of some samples. */
export const slotCellsOf = (samples: ReadonlyArray<EngagementSample>): Array<SlotCell> => {
  const cells = new Map<number, { weekday: number; hour: number; sum: number; samples: number }>()
  for (const sample of samples) {
    const parts = DateTime.toParts(sample.publishedAt)
    const weekday = (parts.weekDay + 6) % 7
    const key = weekday * 24 + parts.hours
    const cell = cells.get(key) ?? { weekday, hour: parts.hours, sum: 0, samples: 0 }
    cell.sum += sample.engagement
    cell.samples++
    cells.set(key, cell)
  }
  return [...cells.values()]
}

/** Each post of the window with recorded engagement: its deliveries' engagement summed, at its first delivery's time. */
export const engagementSamplesOf = (all: ReadonlyArray<TrackedDelivery>, filter: AnalyticsFilter): Array<EngagementSample> => {
  const samples: Array<EngagementSample> = []
  for (const deliveries of byPost(all.filter(matches(filter))).values()) {
    const reported = deliveries.filter((delivery) => {
      const counts = countsOf(delivery)
      return counts !== null && engagementOf(counts) !== null
    })
    if (reported.length === 0) continue
    samples.push({
      publishedAt: earliest(reported),
      engagement: reported.reduce((sum, delivery) => sum + engagementOf(countsOf(delivery)!)!, 0)
    })
  }
  return samples
}

/** Best times' filters: the window, platform and format, and optionally one account's deliveries alone. */
export interface BestTimesFilter extends AnalyticsFilter {
  readonly account: AccountId | null
}

/** The cells GET /best-times reads: the samples of the window's posts (of one account's deliveries, with account). */
export const bestTimeCellsOf = (all: ReadonlyArray<TrackedDelivery>, filter: BestTimesFilter): Array<SlotCell> =>
  slotCellsOf(engagementSamplesOf(filter.account === null ? all : all.filter((delivery) => delivery.accountId === filter.account), filter))

/** GET /best-times's signal and slots. */
export const bestTimesOf = (all: ReadonlyArray<TrackedDelivery>, filter: AnalyticsFilter): Omit<BestTimes, "since_days"> =>
  bestTimesOfCells(bestTimeCellsOf(all, { ...filter, account: null }))

export const bestTimesOfCells = (cells: ReadonlyArray<SlotCell>): Omit<BestTimes, "since_days"> => {
  const slots = slotsOfCells(cells)
  return { signal: signalOf(slots), slots }
}

/** Own samples from which a slot is the account's alone. */
export const ownSamplesTrusted = 3

/**
 * How much of a slot is the account's own: min(own, 3) / 3 of its own samples, so it grows with
 * each post and is the account's alone from three; 1 when the prior has nothing there.
 */
export const ownWeight = (ownSamples: number, priorSamples: number): number =>
  priorSamples === 0 ? 1 : Math.min(ownSamples, ownSamplesTrusted) / ownSamplesTrusted

const cellKey = (cell: SlotCell) => cell.weekday * 24 + cell.hour

/**
 * One account's best times: each slot where the account or its platform (the prior: the
 * platform's cells across the project, the account's own posts among them) has samples, its mean
 * w × own mean + (1 - w) × prior mean with w = ownWeight (docs/analytics.md, "Best times per
 * account"). The ends are exact: w 0 is the prior's slot, w 1 the account's own.
 */
export const blendedSlots = (own: ReadonlyArray<SlotCell>, prior: ReadonlyArray<SlotCell>): Array<BestTimeSlot> => {
  const owned = new Map(own.filter((cell) => cell.samples > 0).map((cell) => [cellKey(cell), cell]))
  const priors = new Map(prior.filter((cell) => cell.samples > 0).map((cell) => [cellKey(cell), cell]))
  const slots: Array<BestTimeSlot> = []
  for (const key of new Set([...owned.keys(), ...priors.keys()])) {
    const mine = owned.get(key)
    const theirs = priors.get(key)
    const ownSamples = mine?.samples ?? 0
    const weight = ownWeight(ownSamples, theirs?.samples ?? 0)
    const avg = weight === 1 ? meanToCents(mine!.sum, mine!.samples)
      : weight === 0 ? meanToCents(theirs!.sum, theirs!.samples)
      : Math.round((weight * (mine!.sum / mine!.samples) + (1 - weight) * (theirs!.sum / theirs!.samples)) * 100) / 100
    slots.push({
      weekday: weekdays[Math.floor(key / 24)]!,
      hour_utc: key % 24,
      avg_engagement: avg,
      samples: weight === 1 ? ownSamples : theirs!.samples,
      own_samples: ownSamples,
      own_weight: Math.round(weight * 100) / 100
    })
  }
  return slots.sort(compareSlots)
}

// ---------------------------------------------------------------------------------------------
// Metrics of a post
// ---------------------------------------------------------------------------------------------

export const DeliveryMetrics = Schema.Struct({
  delivery_id: DeliveryId,
  account_id: AccountId,
  platform: Platform,
  username: Schema.String,
  format: ContentFormat,
  url: Schema.NullOr(Schema.String).annotations({ description: "The live post." }),
  ...ReportedCounts.fields,
  engagement: Schema.NullOr(Schema.Int).annotations({
    description: "likes + comments + shares + saves over those the platform reports; null when it reports none."
  }),
  unreportable: Schema.NullOr(UnreportableReason).annotations({
    description: "Why this delivery will never have numbers (its metrics are then null); null while it can."
  }),
  synced_at: Timestamp.annotations({ description: "When the numbers (or the verdict) were fetched (UTC)." })
}).annotations({ identifier: "DeliveryMetrics" })
export type DeliveryMetrics = typeof DeliveryMetrics.Type

export const PostMetricsReply = Schema.Struct({
  post_id: PostId,
  data: Schema.Array(DeliveryMetrics).annotations({
    description: "One row per delivery synced at least once; empty: not synced yet (refreshed roughly every 6 hours)."
  })
}).annotations({ identifier: "PostMetrics" })
export type PostMetricsReply = typeof PostMetricsReply.Type

const noCounts: ReportedCounts = { views: null, likes: null, comments: null, shares: null, reach: null, saves: null }

/** A delivery's row of GET /metrics, or null while it has not been synced. */
export const deliveryMetricsOf = (delivery: TrackedDelivery): DeliveryMetrics | null => {
  const unreportable = coverageClass(delivery) === "unreportable"
  const syncedAt = delivery.latest?.takenAt ?? delivery.unreportable?.at ?? null
  if (syncedAt === null) return null
  const counts = unreportable ? noCounts : delivery.latest!.counts
  const laterVerdict = delivery.unreportable !== null && delivery.latest !== null && DateTime.greaterThan(delivery.unreportable.at, delivery.latest.takenAt)
  return {
    delivery_id: delivery.deliveryId,
    account_id: delivery.accountId,
    platform: delivery.platform,
    username: delivery.username,
    format: delivery.format,
    url: delivery.url,
    ...counts,
    engagement: engagementOf(counts),
    unreportable: unreportable ? (delivery.format === "story" ? "unsupported" : delivery.unreportable!.reason) : (delivery.unreportable?.reason ?? null),
    synced_at: DateTime.formatIso(laterVerdict ? delivery.unreportable!.at : syncedAt)
  }
}

export const MetricsPoint = Schema.Struct({
  taken_at: Timestamp.annotations({ description: "When the sync found these numbers (UTC)." }),
  ...ReportedCounts.fields,
  engagement: DeliveryMetrics.fields.engagement
}).annotations({ identifier: "MetricsPoint" })
export type MetricsPoint = typeof MetricsPoint.Type

export const DeliveryMetricsHistory = Schema.Struct({
  delivery_id: DeliveryId,
  account_id: AccountId,
  platform: Platform,
  username: Schema.String,
  points: Schema.Array(MetricsPoint).annotations({
    description: "Oldest first; a point per sync that changed the numbers (the last stands until synced_at)."
  }),
  synced_at: DeliveryMetrics.fields.synced_at
}).annotations({ identifier: "DeliveryMetricsHistory" })
export type DeliveryMetricsHistory = typeof DeliveryMetricsHistory.Type

export const PostMetricsHistoryReply = Schema.Struct({
  post_id: PostId,
  data: Schema.Array(DeliveryMetricsHistory).annotations({
    description: "One row per delivery synced at least once, in the order of GET /metrics; empty: not synced yet."
  })
}).annotations({ identifier: "PostMetricsHistory" })
export type PostMetricsHistoryReply = typeof PostMetricsHistoryReply.Type

/** A snapshot as a point of GET /metrics/history. */
export const metricsPointOf = (snapshot: MetricsSnapshot): MetricsPoint => ({
  taken_at: DateTime.formatIso(snapshot.takenAt),
  ...snapshot.counts,
  engagement: engagementOf(snapshot.counts)
})
