// GET /insights, /top-posts and /best-times over 100,000 deliveries with metrics on PostgreSQL:
// each through the MetricsStore (what the endpoints run), beside a raw SQL aggregate over the same
// rows in the same run (a plain GROUP BY of the window's delivery_metrics rows, the latest numbers
// of each delivery). Target: each <= 100 ms. Needs DATABASE_URL (runs in a throwaway schema).
// --explain also prints EXPLAIN ANALYZE of each statement the store ran for each row.
//   DATABASE_URL=postgres://... npx tsx --conditions=herald-source bench/analytics.ts [--explain]
import { SqlClient, Statement } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { AccountId, MetricsStore, ProjectId } from "@herald/core"
import { StorageLive } from "@herald/storage-postgres"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes, randomUUID } from "node:crypto"

const deliveries = 100_000
const runs = 15
const target = 100
const explain = process.argv.includes("--explain")

const url = process.env.DATABASE_URL
if (url === undefined || url === "") {
  console.log("bench/analytics needs PostgreSQL: set DATABASE_URL")
  process.exit(0)
}

const schema = `herald_bench_${randomBytes(6).toString("hex")}`
const scoped = new URL(url)
scoped.searchParams.set("options", `-c search_path=${schema}`)
const schemaLife = Layer.scopedDiscard(Effect.acquireRelease(
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
  () => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`).pipe(Effect.orDie)
)).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
const storage = StorageLive.layer({
  databaseUrl: Option.some(Redacted.make(scoped.toString())),
  dataDir: "unused",
  credentialsKey: Redacted.make(randomBytes(32).toString("base64"))
}).pipe(Layer.provide(schemaLife))

const projectId = ProjectId.make(randomUUID())

/**
 * Two deliveries per post across four platforms over the last 30 days, written as success (the
 * trigger takes each in), then synced: a tenth stories (unreportable), a twentieth deleted, a
 * tenth awaiting, the rest with seeded numbers (null where the platform reports none).
 */
const load = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const posts = deliveries / 2
  yield* sql`
    INSERT INTO posts (id, project_id, version, status, caption, signature, skip_signature, account_ids, media_ids,
      platform_configurations, author_key_id, author_kind, origin_key_id, origin_kind, created_at, updated_at)
    SELECT gen_random_uuid(), ${projectId}, 1, 'posted', 'bench', '', true, '{}', '{}',
      CASE WHEN n % 10 = 0 THEN '{"instagram":{"placement":"stories"},"facebook":{"placement":"stories"}}'::jsonb
           WHEN n % 7 = 0 THEN '{"instagram":{"placement":"reels"}}'::jsonb ELSE '{}'::jsonb END,
      key_id, 'human', key_id, 'human', now() - (n % 43200) * interval '1 minute', now()
    FROM generate_series(1, ${posts}) AS n, LATERAL (SELECT gen_random_uuid() AS key_id WHERE n IS NOT NULL) AS author`
  yield* sql`
    INSERT INTO deliveries (id, post_id, project_id, position, account_id, platform, username, status, url, platform_post_id,
      attempts, created_at, updated_at)
    SELECT gen_random_uuid(), p.id, p.project_id, pos, md5(platform || (row_number() OVER () % 10))::uuid,
      platform, 'acme', 'success',
      'https://example.test/p', 'p', '[]'::jsonb, p.created_at, p.created_at
    FROM posts p CROSS JOIN generate_series(0, 1) AS pos
      CROSS JOIN LATERAL (SELECT (ARRAY['instagram', 'facebook', 'x', 'linkedin'])[1 + ((hashtext(p.id::text) + pos) & 3)] AS platform) a
    WHERE p.project_id = ${projectId}`
  yield* sql`
    UPDATE delivery_metrics SET begun = true,
      unreportable_reason = CASE WHEN format = 'story' THEN 'unsupported' WHEN hashtext(delivery_id::text) % 20 = 0 THEN 'deleted' END,
      synced_at = CASE WHEN format <> 'story' AND hashtext(delivery_id::text) % 10 <> 1 THEN now() END,
      views = abs(hashtext(delivery_id::text)) % 5000,
      likes = abs(hashtext(delivery_id::text)) % 300,
      comments = abs(hashtext(delivery_id::text)) % 40,
      shares = CASE WHEN platform = 'linkedin' THEN NULL ELSE abs(hashtext(delivery_id::text)) % 25 END,
      reach = CASE WHEN platform = 'x' THEN NULL ELSE abs(hashtext(delivery_id::text)) % 4000 END,
      saves = CASE WHEN platform = 'instagram' THEN abs(hashtext(delivery_id::text)) % 60 END
    WHERE project_id = ${projectId}`
  yield* sql`ANALYZE`
  const [row] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM delivery_metrics WHERE project_id = ${projectId}`
  return row!.n
})

/** Median and worst of `runs` timed runs (after one warm-up). */
const time = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    yield* effect
    const samples: Array<number> = []
    for (let i = 0; i < runs; i++) {
      const start = performance.now()
      yield* effect
      samples.push(performance.now() - start)
    }
    samples.sort((a, b) => a - b)
    return { median: samples[Math.floor(runs / 2)]!, worst: samples[runs - 1]! }
  })

type Timing = { readonly median: number; readonly worst: number }

/** The statements `effect` runs, with their parameters (for EXPLAIN). */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const seen: Array<readonly [string, ReadonlyArray<unknown>]> = []
    yield* effect.pipe(Statement.withTransformer((statement) => Effect.sync(() => {
      seen.push(statement.compile())
      return statement
    })))
    return seen
  })

const main = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const store = yield* MetricsStore
  const loaded = yield* load
  const now = DateTime.unsafeNow()
  const window = { since: DateTime.subtract(now, { days: 30 }), platform: null, format: null }
  const since = DateTime.formatIso(window.since)
  const best = { ...window, since: DateTime.subtract(now, { days: 90 }), account: null }
  const bestSince = DateTime.formatIso(best.since)
  const week = { ...window, since: DateTime.subtract(now, { days: 7, minutes: 17 }) }
  const weekSince = DateTime.formatIso(week.since)
  const [account] = yield* sql<{ readonly account_id: string }>`
    SELECT account_id FROM delivery_metrics WHERE project_id = ${projectId} AND platform = 'x' LIMIT 1`
  const accountId = AccountId.make(account!.account_id)
  const insights = yield* store.insights(projectId, window)
  console.log(`${loaded} deliveries with metrics rows (${insights.coverage.with_metrics} with numbers, ${insights.coverage.unreportable} unreportable, ${insights.coverage.awaiting} awaiting); PostgreSQL, median and worst of ${runs} runs`)
  const rows: Array<readonly [string, Effect.Effect<unknown>, Effect.Effect<unknown, unknown>]> = [
    [
      "insights (30 days)",
      store.insights(projectId, window),
      sql`SELECT platform, count(*), sum(views), sum(likes), sum(engagement) FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${since} GROUP BY platform`
    ],
    [
      "insights (7 days, x)",
      store.insights(projectId, { ...week, platform: "x" }),
      sql`SELECT count(*), sum(views), sum(likes), sum(engagement) FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${weekSince} AND platform = 'x'`
    ],
    [
      "top-posts (engagement, 10)",
      store.topPosts(projectId, { ...window, metric: "engagement", limit: 10 }),
      sql`SELECT post_id, sum(engagement) AS e FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${since} GROUP BY post_id ORDER BY e DESC NULLS LAST LIMIT 10`
    ],
    [
      "top-posts (views, feed, 50)",
      store.topPosts(projectId, { ...window, format: "feed", metric: "views", limit: 50 }),
      sql`SELECT post_id, sum(views) AS v FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${since} AND format = 'feed' GROUP BY post_id ORDER BY v DESC NULLS LAST LIMIT 50`
    ],
    [
      "best-times (90 days)",
      store.bestTimes(projectId, best),
      sql`SELECT extract(isodow FROM published_at AT TIME ZONE 'UTC'), extract(hour FROM published_at AT TIME ZONE 'UTC'),
        avg(engagement), count(*) FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${bestSince} AND engagement IS NOT NULL GROUP BY 1, 2`
    ],
    [
      "best-times (one x account)",
      Effect.zip(store.bestTimes(projectId, { ...best, account: accountId }), store.bestTimes(projectId, { ...best, platform: "x" })),
      sql`SELECT extract(isodow FROM published_at AT TIME ZONE 'UTC'), extract(hour FROM published_at AT TIME ZONE 'UTC'),
        avg(engagement), count(*), count(*) FILTER (WHERE account_id = ${accountId}) FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${bestSince} AND engagement IS NOT NULL AND platform = 'x' GROUP BY 1, 2`
    ]
  ]
  const timed: Array<readonly [string, Timing, Timing]> = []
  for (const [name, herald, raw] of rows) timed.push([name, yield* time(herald), yield* time(raw)])
  for (const [name, herald, raw] of timed) {
    const verdict = herald.median <= target ? `target <= ${target} ms met` : `ABOVE the ${target} ms target`
    console.log(
      `${name.padEnd(28)} Herald ${herald.median.toFixed(1).padStart(6)} ms (worst ${herald.worst.toFixed(1)})   raw SQL ${raw.median.toFixed(1).padStart(6)} ms (worst ${raw.worst.toFixed(1)})   ${verdict}`
    )
  }
  if (!explain) return
  for (const [name, herald] of rows) {
    for (const [text, params] of yield* statementsOf(herald)) {
      const plan = yield* sql.unsafe<{ readonly "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)
      console.log(`\n--- ${name}\n${plan.map((line) => line["QUERY PLAN"]).join("\n")}`)
    }
  }
})

Effect.runPromise(main.pipe(Effect.provide(storage), Effect.orDie)).catch((error) => {
  console.error(error)
  process.exit(1)
})
