// GET /insights, /top-posts and /best-times over 100,000 deliveries with metrics on PostgreSQL:
// each through the MetricsStore (what the endpoints run), beside a raw SQL aggregate over the same
// rows in the same run. Target: each <= 100 ms. Needs DATABASE_URL (runs in a throwaway schema).
//   DATABASE_URL=postgres://... npx tsx bench/analytics.ts
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { MetricsStore, ProjectId } from "@herald/core"
import { StorageLive } from "@herald/storage-postgres"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes, randomUUID } from "node:crypto"

const deliveries = 100_000
const runs = 15
const target = 100

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
      platform_configurations, author_key_id, author_kind, created_at, updated_at)
    SELECT gen_random_uuid(), ${projectId}, 1, 'posted', 'bench', '', true, '{}', '{}',
      CASE WHEN n % 10 = 0 THEN '{"instagram":{"placement":"stories"},"facebook":{"placement":"stories"}}'::jsonb
           WHEN n % 7 = 0 THEN '{"instagram":{"placement":"reels"}}'::jsonb ELSE '{}'::jsonb END,
      gen_random_uuid(), 'human', now() - (n % 43200) * interval '1 minute', now()
    FROM generate_series(1, ${posts}) AS n`
  yield* sql`
    INSERT INTO deliveries (id, post_id, project_id, position, account_id, platform, username, status, url, platform_post_id,
      attempts, created_at, updated_at)
    SELECT gen_random_uuid(), p.id, p.project_id, pos, gen_random_uuid(),
      (ARRAY['instagram', 'facebook', 'x', 'linkedin'])[1 + (row_number() OVER () + pos) % 4], 'acme', 'success',
      'https://example.test/p', 'p', '[]'::jsonb, p.created_at, p.created_at
    FROM posts p CROSS JOIN generate_series(0, 1) AS pos WHERE p.project_id = ${projectId}`
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

const main = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const store = yield* MetricsStore
  const loaded = yield* load
  const now = DateTime.unsafeNow()
  const window = { since: DateTime.subtract(now, { days: 30 }), platform: null, format: null }
  const since = DateTime.formatIso(window.since)
  const best = { ...window, since: DateTime.subtract(now, { days: 90 }) }
  const bestSince = DateTime.formatIso(best.since)
  const insights = yield* store.insights(projectId, window)
  console.log(`${loaded} deliveries with metrics rows (${insights.coverage.with_metrics} with numbers, ${insights.coverage.unreportable} unreportable, ${insights.coverage.awaiting} awaiting); PostgreSQL, median and worst of ${runs} runs`)
  const rows: Array<[string, { median: number; worst: number }, { median: number; worst: number }]> = [
    [
      "insights (30 days)",
      yield* time(store.insights(projectId, window)),
      yield* time(sql`SELECT platform, count(*), sum(views), sum(likes), sum(engagement) FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${since} GROUP BY platform`)
    ],
    [
      "top-posts (engagement, 10)",
      yield* time(store.topPosts(projectId, { ...window, metric: "engagement", limit: 10 })),
      yield* time(sql`SELECT post_id, sum(engagement) AS e FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${since} GROUP BY post_id ORDER BY e DESC NULLS LAST LIMIT 10`)
    ],
    [
      "best-times (90 days)",
      yield* time(store.bestTimes(projectId, { ...best, account: null })),
      yield* time(sql`SELECT extract(isodow FROM published_at AT TIME ZONE 'UTC'), extract(hour FROM published_at AT TIME ZONE 'UTC'),
        avg(engagement), count(*) FROM delivery_metrics
        WHERE project_id = ${projectId} AND published_at >= ${bestSince} AND engagement IS NOT NULL GROUP BY 1, 2`)
    ]
  ]
  for (const [name, herald, raw] of rows) {
    const verdict = herald.median <= target ? `target <= ${target} ms met` : `ABOVE the ${target} ms target`
    console.log(
      `${name.padEnd(28)} Herald ${herald.median.toFixed(1).padStart(6)} ms (worst ${herald.worst.toFixed(1)})   raw SQL ${raw.median.toFixed(1).padStart(6)} ms (worst ${raw.worst.toFixed(1)})   ${verdict}`
    )
  }
})

Effect.runPromise(main.pipe(Effect.provide(storage), Effect.orDie)).catch((error) => {
  console.error(error)
  process.exit(1)
})
