import { SqlClient } from "@effect/sql"
import {
  type AccountId,
  type AnalyticsFilter,
  type ContentFormat,
  type DeliveryId,
  deliveryMetricsOf,
  MetricsStore,
  type Platform,
  type PostId,
  type ProjectId,
  type ReportedCounts,
  signalOf,
  slotsOfCells,
  type SyncSchedule,
  type TopPost,
  traced,
  type TrackedDelivery,
  type UnreportableReason
} from "@herald/core"
import { DateTime, Duration, Effect, Layer } from "effect"
import { orDieInfra } from "./Infra.js"

/** Counts are bigint columns, which the drivers hand over as strings: read as float8 (exact to 2^53). */
const counts = "views::float8 AS views, likes::float8 AS likes, comments::float8 AS comments, shares::float8 AS shares, reach::float8 AS reach, saves::float8 AS saves"

interface MetricsRow {
  readonly delivery_id: string
  readonly post_id: string
  readonly project_id: string
  readonly account_id: string
  readonly platform: string
  readonly username: string
  readonly format: string
  readonly published_at: Date
  readonly url: string | null
  readonly synced_at: Date | null
  readonly views: number | null
  readonly likes: number | null
  readonly comments: number | null
  readonly shares: number | null
  readonly reach: number | null
  readonly saves: number | null
  readonly unreportable_reason: string | null
  readonly unreportable_detail: string | null
  readonly unreportable_at: Date | null
}

const iso = (at: DateTime.Utc) => DateTime.formatIso(at)
const millis = (duration: Duration.Duration) => Duration.toMillis(duration)

// Rows the database wrote through the trigger and this module: their values are valid by construction.
const trackedOf = (row: MetricsRow): TrackedDelivery => ({
  deliveryId: row.delivery_id as DeliveryId,
  postId: row.post_id as PostId,
  projectId: row.project_id as ProjectId,
  accountId: row.account_id as AccountId,
  platform: row.platform as Platform,
  username: row.username,
  format: row.format as ContentFormat,
  publishedAt: DateTime.unsafeMake(row.published_at),
  url: row.url,
  latest: row.synced_at === null ? null : {
    takenAt: DateTime.unsafeMake(row.synced_at),
    counts: { views: row.views, likes: row.likes, comments: row.comments, shares: row.shares, reach: row.reach, saves: row.saves }
  },
  unreportable: row.unreportable_reason === null ? null : {
    reason: row.unreportable_reason as UnreportableReason,
    detail: row.unreportable_detail ?? "",
    at: DateTime.unsafeMake(row.unreportable_at!)
  }
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  /**
   * The deliveries of the window and filters, each in its coverage class as core's coverageClass
   * puts it (m: with_metrics, u: unreportable, a: awaiting) and whether it is unsupported.
   */
  const windowRows = (projectId: ProjectId, filter: AnalyticsFilter) => sql`
    SELECT post_id, platform, published_at, views, likes, comments, shares, reach, saves, engagement,
      CASE WHEN format = 'story' THEN 'u' WHEN synced_at IS NOT NULL THEN 'm' WHEN unreportable_reason IS NOT NULL THEN 'u' ELSE 'a' END AS class,
      (format = 'story' OR (synced_at IS NULL AND unreportable_reason = 'unsupported')) AS unsupported
    FROM delivery_metrics
    WHERE project_id = ${projectId} AND published_at >= ${iso(filter.since)}
      AND (${filter.platform}::text IS NULL OR platform = ${filter.platform})
      AND (${filter.format}::text IS NULL OR format = ${filter.format})`

  const sumOf = (column: string) => sql.literal(`coalesce(sum(${column}) FILTER (WHERE class = 'm'), 0)::float8 AS ${column}`)

  return MetricsStore.of({
    claimDue: traced("MetricsStore.claimDue")(({ leaseMillis, limit, now, schedule, worker }) =>
      orDieInfra(sql<{
        readonly delivery_id: string
        readonly project_id: string
        readonly account_id: string
        readonly platform: string
        readonly platform_post_id: string | null
        readonly published_at: Date
      }>`
        WITH paused AS (
          SELECT platform FROM metrics_platform_pauses WHERE until > ${iso(now)}
        ), later AS (
          SELECT delivery_id FROM delivery_metrics
           WHERE begun AND next_sync_at IS NOT NULL AND next_sync_at <= ${iso(now)}
             AND (lease_expires_at IS NULL OR lease_expires_at <= ${iso(now)})
             AND platform NOT IN (SELECT platform FROM paused)
           ORDER BY next_sync_at
           LIMIT ${limit}
           FOR UPDATE SKIP LOCKED
        ), first AS (
          SELECT delivery_id FROM delivery_metrics
           WHERE NOT begun AND unreportable_reason IS NULL
             AND published_at <= ${iso(now)}::timestamptz - ${millis(schedule.firstAfter)} * interval '1 millisecond'
             AND published_at >= ${iso(now)}::timestamptz - ${millis(schedule.lastAfter)} * interval '1 millisecond'
             AND (lease_expires_at IS NULL OR lease_expires_at <= ${iso(now)})
             AND platform NOT IN (SELECT platform FROM paused)
           ORDER BY published_at
           LIMIT ${limit}
           FOR UPDATE SKIP LOCKED
        ), due AS (
          (SELECT delivery_id FROM later) UNION ALL (SELECT delivery_id FROM first) LIMIT ${limit}
        )
        UPDATE delivery_metrics m
        SET lease_owner = ${worker}, lease_expires_at = ${iso(now)}::timestamptz + ${leaseMillis} * interval '1 millisecond'
        FROM due WHERE m.delivery_id = due.delivery_id
        RETURNING m.delivery_id, m.project_id, m.account_id, m.platform, m.platform_post_id, m.published_at`.pipe(
        Effect.map((rows) =>
          rows.map((row) => ({
            deliveryId: row.delivery_id as DeliveryId,
            projectId: row.project_id as ProjectId,
            accountId: row.account_id as AccountId,
            platform: row.platform as Platform,
            platformPostId: row.platform_post_id,
            publishedAt: DateTime.unsafeMake(row.published_at)
          }))
        )
      ))
    ),
    settle: traced("MetricsStore.settle")((deliveryId, worker, outcome, schedule: SyncSchedule) => {
      const lastSync = sql`published_at + ${millis(schedule.lastAfter)} * interval '1 millisecond'`
      const next = (at: DateTime.Utc) => sql`CASE WHEN ${iso(at)}::timestamptz <= ${lastSync} THEN ${iso(at)}::timestamptz END`
      const owned = sql`delivery_id = ${deliveryId} AND lease_owner = ${worker}`
      const released = sql`lease_owner = NULL, lease_expires_at = NULL, begun = true`
      const written = (() => {
        switch (outcome._tag) {
          case "Reported": {
            const c: ReportedCounts = outcome.counts
            const at = iso(outcome.at)
            return sql<{ readonly n: number }>`
              WITH settled AS (
                UPDATE delivery_metrics SET ${released},
                  next_sync_at = ${next(DateTime.addDuration(outcome.at, schedule.every))}, synced_at = ${at},
                  views = ${c.views}, likes = ${c.likes}, comments = ${c.comments}, shares = ${c.shares}, reach = ${c.reach}, saves = ${c.saves}
                WHERE ${owned}
                RETURNING delivery_id
              ), snapshot AS (
                INSERT INTO metric_snapshots (delivery_id, taken_at, views, likes, comments, shares, reach, saves)
                SELECT delivery_id, ${at}, ${c.views}, ${c.likes}, ${c.comments}, ${c.shares}, ${c.reach}, ${c.saves} FROM settled
                ON CONFLICT DO NOTHING
              )
              SELECT count(*)::int AS n FROM settled`
          }
          case "Unreportable":
            return sql<{ readonly n: number }>`
              WITH settled AS (
                UPDATE delivery_metrics SET ${released}, next_sync_at = NULL,
                  unreportable_reason = ${outcome.reason}, unreportable_detail = ${outcome.detail}, unreportable_at = ${iso(outcome.at)}
                WHERE ${owned}
                RETURNING delivery_id
              )
              SELECT count(*)::int AS n FROM settled`
          case "Later":
            return sql<{ readonly n: number }>`
              WITH settled AS (
                UPDATE delivery_metrics SET ${released}, next_sync_at = ${next(outcome.retryAt)}
                WHERE ${owned}
                RETURNING delivery_id
              )
              SELECT count(*)::int AS n FROM settled`
        }
      })()
      return orDieInfra(written).pipe(Effect.map(([row]) => (row?.n ?? 0) > 0))
    }),
    pausePlatform: traced("MetricsStore.pausePlatform")((platform, until) =>
      orDieInfra(sql`
        INSERT INTO metrics_platform_pauses (platform, until) VALUES (${platform}, ${iso(until)})
        ON CONFLICT (platform) DO UPDATE SET until = greatest(metrics_platform_pauses.until, excluded.until)`).pipe(Effect.asVoid)
    ),
    history: traced("MetricsStore.history")((deliveryId) =>
      orDieInfra(sql<{ readonly taken_at: Date } & { readonly [K in keyof ReportedCounts]: number | null }>`
        SELECT taken_at, ${sql.literal(counts)} FROM metric_snapshots WHERE delivery_id = ${deliveryId} ORDER BY taken_at`).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({
            takenAt: DateTime.unsafeMake(row.taken_at),
            counts: { views: row.views, likes: row.likes, comments: row.comments, shares: row.shares, reach: row.reach, saves: row.saves }
          }))
        )
      )
    ),
    ofPost: traced("MetricsStore.ofPost")((projectId, postId) =>
      orDieInfra(sql<MetricsRow>`
        SELECT delivery_id, post_id, project_id, account_id, platform, username, format, published_at, url, synced_at, ${sql.literal(counts)},
          unreportable_reason, unreportable_detail, unreportable_at
        FROM delivery_metrics WHERE project_id = ${projectId} AND post_id = ${postId} ORDER BY position`).pipe(
        Effect.map((rows) =>
          rows.flatMap((row) => {
            const metrics = deliveryMetricsOf(trackedOf(row))
            return metrics === null ? [] : [metrics]
          })
        )
      )
    ),
    insights: traced("MetricsStore.insights")((projectId, filter) =>
      Effect.gen(function*() {
        const rows = yield* orDieInfra(sql<{
          readonly platform: string | null
          readonly posts: number
          readonly deliveries: number
          readonly with_metrics: number
          readonly unreportable: number
          readonly unsupported: number
          readonly views: number
          readonly likes: number
          readonly comments: number
          readonly shares: number
          readonly reach: number
          readonly saves: number
          readonly engagement: number
        }>`
          WITH w AS (${windowRows(projectId, filter)})
          SELECT platform, count(DISTINCT post_id)::int AS posts, count(*)::int AS deliveries,
            count(*) FILTER (WHERE class = 'm')::int AS with_metrics,
            count(*) FILTER (WHERE class = 'u')::int AS unreportable,
            count(*) FILTER (WHERE unsupported)::int AS unsupported,
            ${sumOf("views")}, ${sumOf("likes")}, ${sumOf("comments")}, ${sumOf("shares")}, ${sumOf("reach")}, ${sumOf("saves")}, ${sumOf("engagement")}
          FROM w GROUP BY ROLLUP (platform)`)
        const [ever] = yield* orDieInfra(sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM delivery_metrics WHERE project_id = ${projectId}`)
        const totalsOf = (row: typeof rows[number]) => ({
          views: row.views, likes: row.likes, comments: row.comments, shares: row.shares, reach: row.reach, saves: row.saves, engagement: row.engagement
        })
        // ROLLUP's grand total is the row whose platform is null; with no rows in the window there is none.
        const all = rows.find((row) => row.platform === null)
        const byPlatform: Record<string, { posts: number; deliveries: number; with_metrics: number; totals: ReturnType<typeof totalsOf> }> = {}
        for (const row of rows.filter((row) => row.platform !== null).sort((a, b) => a.platform! < b.platform! ? -1 : 1)) {
          byPlatform[row.platform!] = { posts: row.posts, deliveries: row.deliveries, with_metrics: row.with_metrics, totals: totalsOf(row) }
        }
        const deliveries = all?.deliveries ?? 0
        const withMetrics = all?.with_metrics ?? 0
        const unreportable = all?.unreportable ?? 0
        return {
          posts: all?.posts ?? 0,
          deliveries,
          totals: all === undefined
            ? { views: 0, likes: 0, comments: 0, shares: 0, reach: 0, saves: 0, engagement: 0 }
            : totalsOf(all),
          by_platform: byPlatform,
          coverage: {
            deliveries,
            with_metrics: withMetrics,
            unreportable,
            awaiting: deliveries - withMetrics - unreportable,
            unsupported: all?.unsupported ?? 0,
            ever_delivered: ever?.n ?? 0
          }
        }
      })
    ),
    topPosts: traced("MetricsStore.topPosts")((projectId, query) =>
      orDieInfra(sql<{
        readonly post_id: string
        readonly value: number | null
        readonly published_at: Date
        readonly platforms: ReadonlyArray<string>
        readonly deliveries: number
      }>`
        WITH w AS (${windowRows(projectId, query)})
        SELECT post_id,
          sum(CASE WHEN class = 'm' THEN CASE ${query.metric}::text
            WHEN 'views' THEN views WHEN 'likes' THEN likes WHEN 'comments' THEN comments WHEN 'shares' THEN shares
            WHEN 'reach' THEN reach WHEN 'saves' THEN saves ELSE engagement END END)::float8 AS value,
          min(published_at) AS published_at,
          array_agg(DISTINCT platform ORDER BY platform) AS platforms,
          count(*)::int AS deliveries
        FROM w GROUP BY post_id
        ORDER BY value DESC NULLS LAST, published_at DESC, post_id DESC
        LIMIT ${query.limit}`).pipe(
        Effect.map((rows) =>
          rows.map((row): TopPost => ({
            post_id: row.post_id as PostId,
            value: row.value,
            published_at: DateTime.formatIso(DateTime.unsafeMake(row.published_at)),
            platforms: row.platforms as ReadonlyArray<Platform>,
            deliveries: row.deliveries
          }))
        )
      )
    ),
    bestTimes: traced("MetricsStore.bestTimes")((projectId, filter) =>
      orDieInfra(sql<{ readonly weekday: number; readonly hour: number; readonly sum: number; readonly samples: number }>`
        WITH w AS (${windowRows(projectId, filter)}),
        posts AS (
          SELECT min(published_at) AS first_at, sum(engagement) AS engagement
          FROM w WHERE class = 'm' AND engagement IS NOT NULL GROUP BY post_id
        )
        SELECT (extract(isodow FROM first_at AT TIME ZONE 'UTC')::int - 1) AS weekday,
          extract(hour FROM first_at AT TIME ZONE 'UTC')::int AS hour,
          sum(engagement)::float8 AS sum, count(*)::int AS samples
        FROM posts GROUP BY 1, 2`).pipe(
        Effect.map((cells) => {
          const slots = slotsOfCells(cells)
          return { signal: signalOf(slots), slots }
        })
      )
    )
  })
})

export const PostgresMetricsStore = Layer.effect(MetricsStore, make)
