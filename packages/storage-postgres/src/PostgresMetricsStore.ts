import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  type AccountId,
  type AnalyticsFilter,
  type BestTimesFilter,
  type ContentFormat,
  type DeliveryId,
  deliveryMetricsOf,
  MetricsStore,
  type Platform,
  type PostId,
  type ProjectId,
  type ReportedCounts,
  type SlotCell,
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
   * Roll-ups (migration 0016): whole UTC hours after the one the window starts in come from
   * metrics_hours and metrics_post_cells at the filters' level ('*': any); the posts that went out
   * in that first hour, and the posts whose deliveries span hours, from their deliveries
   * (`rawPosts`), as the rules put them. The two sets of posts are disjoint, so their figures add.
   */
  const levelOf = (filter: AnalyticsFilter) => ({ platform: filter.platform ?? "*", format: filter.format ?? "*" })
  const fullHoursFrom = (filter: AnalyticsFilter) => sql`date_trunc('hour', ${iso(filter.since)}::timestamptz, 'UTC') + interval '1 hour'`
  const rawPosts = (projectId: ProjectId, filter: AnalyticsFilter) => sql`
    SELECT post_id FROM metrics_posts WHERE project_id = ${projectId} AND spread AND last_at >= ${iso(filter.since)}
    UNION ALL
    SELECT post_id FROM metrics_posts WHERE project_id = ${projectId} AND NOT spread
      AND hour = date_trunc('hour', ${iso(filter.since)}::timestamptz, 'UTC')`

  /**
   * The deliveries of the window and filters (of `posts` alone when given), each in its coverage
   * class as core's coverageClass puts it (m: with_metrics, u: unreportable, a: awaiting) and
   * whether it is unsupported.
   */
  const windowRows = (projectId: ProjectId, filter: BestTimesFilter, posts: Fragment | null) => sql`
    SELECT post_id, platform, published_at, views, likes, comments, shares, reach, saves, engagement,
      CASE WHEN format = 'story' THEN 'u' WHEN synced_at IS NOT NULL THEN 'm' WHEN unreportable_reason IS NOT NULL THEN 'u' ELSE 'a' END AS class,
      (format = 'story' OR (synced_at IS NULL AND unreportable_reason = 'unsupported')) AS unsupported
    FROM delivery_metrics
    WHERE project_id = ${projectId} AND published_at >= ${iso(filter.since)}
      AND (${filter.platform}::text IS NULL OR platform = ${filter.platform})
      AND (${filter.format}::text IS NULL OR format = ${filter.format})
      AND (${filter.account}::uuid IS NULL OR account_id = ${filter.account})
      ${posts === null ? sql`` : sql`AND post_id IN (${posts})`}`

  const sumOf = (column: string) => sql.literal(`coalesce(sum(${column}) FILTER (WHERE class = 'm'), 0)::float8 AS ${column}`)
  const metricColumns = ["views", "likes", "comments", "shares", "reach", "saves", "engagement"] as const

  /** Best times' cells of the window's posts (of one account's deliveries, with account). */
  const cellsOf = (projectId: ProjectId, filter: BestTimesFilter) => {
    const level = levelOf(filter)
    const sampled = (rows: Fragment) => sql`
      SELECT (extract(isodow FROM first_at AT TIME ZONE 'UTC')::int - 1) AS weekday,
        extract(hour FROM first_at AT TIME ZONE 'UTC')::int AS hour, engagement AS sum, 1 AS samples
      FROM (
        SELECT min(published_at) AS first_at, sum(engagement) AS engagement
        FROM (${rows}) w WHERE class = 'm' AND engagement IS NOT NULL GROUP BY post_id
      ) posts`
    // One account's posts are few: read from its deliveries alone.
    const cells = filter.account !== null ? sampled(windowRows(projectId, filter, null)) : sql`
      ${sampled(windowRows(projectId, filter, rawPosts(projectId, filter)))}
      UNION ALL
      SELECT (extract(isodow FROM hour AT TIME ZONE 'UTC')::int - 1), extract(hour FROM hour AT TIME ZONE 'UTC')::int, engagement, samples
      FROM metrics_hours
      WHERE project_id = ${projectId} AND platform = ${level.platform} AND format = ${level.format} AND hour >= ${fullHoursFrom(filter)}
        AND samples > 0`
    return sql<SlotCell>`SELECT weekday, hour, sum(sum)::float8 AS sum, sum(samples)::int AS samples FROM (${cells}) c GROUP BY 1, 2`
  }

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
                WHERE NOT EXISTS (
                  SELECT 1 FROM (
                    SELECT views, likes, comments, shares, reach, saves FROM metric_snapshots
                    WHERE delivery_id = settled.delivery_id ORDER BY taken_at DESC LIMIT 1
                  ) last
                  WHERE (last.views, last.likes, last.comments, last.shares, last.reach, last.saves) IS NOT DISTINCT FROM
                    (${c.views}::bigint, ${c.likes}::bigint, ${c.comments}::bigint, ${c.shares}::bigint, ${c.reach}::bigint, ${c.saves}::bigint)
                )
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
        const level = levelOf(filter)
        const rows = yield* orDieInfra(sql<{
          readonly platform: string
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
          WITH w AS (${windowRows(projectId, { ...filter, account: null }, rawPosts(projectId, filter))}),
          figures AS (
            SELECT coalesce(platform, '*') AS platform, count(DISTINCT post_id)::int AS posts, count(*)::int AS deliveries,
              count(*) FILTER (WHERE class = 'm')::int AS with_metrics,
              count(*) FILTER (WHERE class = 'u')::int AS unreportable,
              count(*) FILTER (WHERE unsupported)::int AS unsupported,
              ${sumOf("views")}, ${sumOf("likes")}, ${sumOf("comments")}, ${sumOf("shares")}, ${sumOf("reach")}, ${sumOf("saves")}, ${sumOf("engagement")}
            FROM w GROUP BY ROLLUP (platform)
            UNION ALL
            SELECT platform, sum(posts)::int, sum(deliveries)::int, sum(with_metrics)::int, sum(unreportable)::int, sum(unsupported)::int,
              ${sql.literal(metricColumns.map((column) => `sum(${column})::float8`).join(", "))}
            FROM metrics_hours
            WHERE project_id = ${projectId} AND format = ${level.format} AND hour >= ${fullHoursFrom(filter)}
              AND (${filter.platform}::text IS NULL OR platform = ${filter.platform})
            GROUP BY platform
          )
          SELECT platform, sum(posts)::int AS posts, sum(deliveries)::int AS deliveries, sum(with_metrics)::int AS with_metrics,
            sum(unreportable)::int AS unreportable, sum(unsupported)::int AS unsupported,
            ${sql.literal(metricColumns.map((column) => `sum(${column})::float8 AS ${column}`).join(", "))}
          FROM figures GROUP BY platform`)
        // Every delivery that ever went out: the hours' at the level of no filter, and the spread posts'.
        const [ever] = yield* orDieInfra(sql<{ readonly n: number }>`
          SELECT (
            (SELECT coalesce(sum(deliveries), 0) FROM metrics_hours WHERE project_id = ${projectId} AND platform = '*' AND format = '*') +
            (SELECT coalesce(sum(deliveries), 0) FROM metrics_posts WHERE project_id = ${projectId} AND spread)
          )::int AS n`)
        const totalsOf = (row: typeof rows[number]) => ({
          views: row.views, likes: row.likes, comments: row.comments, shares: row.shares, reach: row.reach, saves: row.saves, engagement: row.engagement
        })
        // The level of the filters is the whole window; with a platform, that platform's row.
        const all = rows.find((row) => row.platform === level.platform)
        const byPlatform: Record<string, { posts: number; deliveries: number; with_metrics: number; totals: ReturnType<typeof totalsOf> }> = {}
        for (const row of rows.filter((row) => row.platform !== "*" && row.deliveries > 0).sort((a, b) => a.platform < b.platform ? -1 : 1)) {
          byPlatform[row.platform] = { posts: row.posts, deliveries: row.deliveries, with_metrics: row.with_metrics, totals: totalsOf(row) }
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
    topPosts: traced("MetricsStore.topPosts")((projectId, query) => {
      const level = levelOf(query)
      const order = sql`ORDER BY value DESC NULLS LAST, published_at DESC, post_id DESC LIMIT ${query.limit}`
      return orDieInfra(sql<{
        readonly post_id: string
        readonly value: number | null
        readonly published_at: Date
        readonly platforms: ReadonlyArray<string>
        readonly deliveries: number
      }>`
        WITH w AS (${windowRows(projectId, { ...query, account: null }, rawPosts(projectId, query))})
        SELECT * FROM (
          (SELECT post_id,
            sum(CASE WHEN class = 'm' THEN ${sql.literal(query.metric)} END)::float8 AS value,
            min(published_at) AS published_at,
            array_agg(DISTINCT platform ORDER BY platform) AS platforms,
            count(*)::int AS deliveries
          FROM w GROUP BY post_id ${order})
          UNION ALL
          (SELECT post_id, ${sql.literal(query.metric)}::float8 AS value, first_at AS published_at, platforms, deliveries
          FROM metrics_post_cells
          WHERE project_id = ${projectId} AND platform = ${level.platform} AND format = ${level.format} AND hour >= ${fullHoursFrom(query)}
          ORDER BY ${sql.literal(query.metric)} DESC NULLS LAST, first_at DESC, post_id DESC LIMIT ${query.limit})
        ) ranked ${order}`).pipe(
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
    }),
    bestTimes: traced("MetricsStore.bestTimes")((projectId, filter) => orDieInfra(cellsOf(projectId, filter)))
  })
})

export const PostgresMetricsStore = Layer.effect(MetricsStore, make)
