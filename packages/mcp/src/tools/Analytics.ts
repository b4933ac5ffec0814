import { Platform } from "@herald/core"
import { Schema } from "effect"

// The analytics replies of the contract (GET /metrics, /insights, /top-posts, /best-times). No
// analytics use case exists yet, so the four tools answer these shapes empty: nothing is synced,
// and no number is made up. The analytics issue moves them beside its use cases and wires the tools.

const Count = Schema.NullOr(Schema.NonNegativeInt).annotations({ description: "null: the platform does not report it (not zero)." })

export const metricNames = ["engagement", "views", "likes", "comments", "shares", "reach", "saves"] as const

export const sinceDays = (fallback: number) =>
  Schema.optional(Schema.Int.pipe(Schema.between(1, 365)).annotations({
    description: `The window in days, 1 to 365 (default ${fallback}).`,
    examples: [fallback]
  }))

export const platformFilter = Schema.optional(Platform.annotations({ description: "Only this platform." }))
export const formatFilter = Schema.optional(Schema.Literal("feed", "reel", "story").annotations({ description: "Only this format." }))

export const MetricsRow = Schema.Struct({
  delivery_id: Schema.UUID,
  platform: Platform,
  url: Schema.NullOr(Schema.String),
  views: Count,
  likes: Count,
  comments: Count,
  shares: Count,
  reach: Count,
  saves: Count,
  engagement: Count
})

export const PostMetricsReply = Schema.Struct({
  post_id: Schema.UUID,
  data: Schema.Array(MetricsRow).annotations({ description: "Empty: not synced yet (metrics refresh about every 6 hours)." })
})

const Totals = Schema.Struct({
  views: Schema.NonNegativeInt,
  likes: Schema.NonNegativeInt,
  comments: Schema.NonNegativeInt,
  shares: Schema.NonNegativeInt,
  reach: Schema.NonNegativeInt,
  saves: Schema.NonNegativeInt,
  engagement: Schema.NonNegativeInt
})

export const emptyTotals: typeof Totals.Type = { views: 0, likes: 0, comments: 0, shares: 0, reach: 0, saves: 0, engagement: 0 }

export const InsightsReply = Schema.Struct({
  posts: Schema.NonNegativeInt,
  deliveries: Schema.NonNegativeInt,
  totals: Totals.annotations({ description: "Sums over the deliveries with metrics." }),
  by_platform: Schema.Array(Schema.Struct({ platform: Platform, deliveries: Schema.NonNegativeInt, totals: Totals })),
  coverage: Schema.Struct({
    deliveries: Schema.NonNegativeInt,
    with_metrics: Schema.NonNegativeInt,
    unreportable: Schema.NonNegativeInt,
    awaiting: Schema.NonNegativeInt,
    unsupported: Schema.NonNegativeInt,
    ever_delivered: Schema.NonNegativeInt
  }).annotations({ description: "with_metrics + unreportable + awaiting = deliveries, always." })
})

export const TopPostsReply = Schema.Struct({
  metric: Schema.Literal(...metricNames),
  since_days: Schema.Int,
  data: Schema.Array(Schema.Struct({ post_id: Schema.UUID, caption: Schema.String, value: Schema.Number, url: Schema.NullOr(Schema.String) }))
})

export const BestTimesReply = Schema.Struct({
  signal: Schema.Literal("none", "thin", "ok").annotations({
    description: "none: no engagement recorded (order meaningless); thin: a slot rests on one or two posts; ok: three or more each."
  }),
  slots: Schema.Array(Schema.Struct({
    weekday: Schema.String,
    hour_utc: Schema.Int,
    avg_engagement: Schema.Number,
    samples: Schema.Int
  }))
})

export const noMetricsYet = "No engagement metrics are collected on this instance yet."
