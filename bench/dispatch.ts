// The dispatch pipeline under load: two worker processes on PostgreSQL publishing to the simulator
// at 0 latency (in this process).
//   DATABASE_URL=postgres://... npx tsx --conditions=herald-source bench/dispatch.ts
// 1. Lateness: 10,000 posts due within the same minute (spread evenly over it); how long after its
//    due time each went out (p50/p99/max). Target p99 < 1 s.
// 2. Throughput: 10,000 more posts due at once; deliveries per second while the backlog drains
//    (for at most 40 s). Target >= 2,000/s. Also the worker processes' CPU time per delivery over
//    the drain (from /proc), of this process (the simulator) and of the whole machine (the rest is
//    mostly PostgreSQL): on two shared cores the machine's share bounds the rate.
// 3. Baseline, same run, same rows, same client: bare SQL doing what any exactly-once dispatcher
//    must: claim a batch through the same index, then per delivery an intent UPDATE and an outcome
//    UPDATE (two commits), on 8 connections.
// Each phase's posts are inserted in one transaction before they are due, so the setup is not timed.
// Runs in a throwaway schema; about 2.5 minutes.
// The workers run as docs/configuration.md recommends for busy worker processes: 128 deliveries in
// flight, --max-semi-space-size=128. BENCH_WORKER_NODE_ARGS (optional, space-separated; later node
// flags win) go to each worker's node, e.g.
//   "--cpu-prof --cpu-prof-dir=/tmp/profiles" (a profile per worker, written when it stops).
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { AccountId, ApiKeyId, Delivery, DeliveryId, noGuardrails, Post, PostId, Project, ProjectAdmin, ProjectId, SocialAccount, AccountAdmin } from "@herald/core"
import { startSimulator } from "@herald/publishers"
import { StorageLive } from "@herald/storage-postgres"
import { DateTime, Effect, ManagedRuntime, Option, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { deliveryToRow, postToRow } from "../packages/storage-postgres/src/Rows.js"
import { cpuMsOf } from "./ProcessCpu.js"

const url = process.env.DATABASE_URL
if (url === undefined || url === "") {
  console.error("bench/dispatch.ts needs PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)")
  process.exit(1)
}

const posts = 10_000
const spreadMillis = 60_000
const drainLimitMillis = 40_000
const baselineMillis = 10_000
const baselineConnections = 8
const baselineBatch = 16
const workerConcurrency = 128
const workerSemiSpaceMb = 128

const schema = `herald_dispatch_${randomBytes(6).toString("hex")}`
const scoped = new URL(url)
scoped.searchParams.set("options", `-c search_path=${schema}`)
const credentialsKey = Redacted.make(randomBytes(32).toString("base64"))
const admin = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`))
const runtime = ManagedRuntime.make(
  StorageLive.layer({ databaseUrl: Option.some(Redacted.make(scoped.toString())), dataDir: "unused", credentialsKey, maxConnections: baselineConnections })
)
const simulator = await startSimulator({ latency: { minMs: 0, maxMs: 0 } })
const children: Array<ChildProcess> = []

const project = new Project({
  id: ProjectId.make(randomUUID()),
  name: "Bench",
  timezone: "UTC",
  approval: "autopilot",
  signature: "",
  guardrails: noGuardrails,
  plan: "active"
})
const account = new SocialAccount({ id: AccountId.make(randomUUID()), projectId: project.id, platform: "x", username: "bench", route: "simulator", status: "active" })
const keyId = ApiKeyId.make(randomUUID())

/**
 * Scheduled posts with one queued delivery each, written straight to the tables in one transaction
 * (so no worker sees any before all are there); returns when they were committed.
 */
const insertDue = (dueAt: (index: number) => DateTime.Utc) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = yield* DateTime.now
    yield* sql.withTransaction(Effect.forEach(Array.from({ length: Math.ceil(posts / 1_000) }, (_, chunk) => chunk * 1_000), (start) => {
      const batch = Array.from({ length: Math.min(1_000, posts - start) }, (_, offset) => {
        const due = dueAt(start + offset)
        const id = PostId.make(randomUUID())
        const post = new Post({
          id, projectId: project.id, version: 1, status: "scheduled", caption: `Bench post ${start + offset}`, signature: "",
          skipSignature: false, accountIds: [account.id], mediaIds: [], scheduledAt: due, platformConfigurations: {},
          author: { keyId, keyName: "bench", kind: "human", surface: "rest" },
          origin: { keyId, keyName: "bench", kind: "human", surface: "rest" }, decision: null, supersedes: null, supersededBy: null, idempotencyKey: null,
          createdAt: now, updatedAt: now
        })
        const delivery = new Delivery({
          id: DeliveryId.make(randomUUID()), postId: id, projectId: project.id, accountId: account.id, platform: "x",
          username: account.username, status: "queued", dueAt: due, url: null, platformPostId: null, error: null, note: null,
          attempts: [], takedown: null, createdAt: now, updatedAt: now
        })
        return { post, delivery }
      })
      return Effect.zipRight(
        sql`INSERT INTO posts ${sql.insert(batch.map(({ post }) => postToRow(post)))}`,
        sql`INSERT INTO deliveries ${sql.insert(batch.map(({ delivery }) => deliveryToRow(delivery, 0)))}`
      )
    }, { discard: true }))
    return DateTime.toEpochMillis(yield* DateTime.now)
  }).pipe(Effect.orDie)

/** Per delivery: due time and the moment its success was recorded (the attempt's end). */
const outcomes = (since: DateTime.Utc) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly lateness_ms: number | null; readonly finished: Date | null }>`
      SELECT EXTRACT(EPOCH FROM ((d.attempts->-1->>'finishedAt')::timestamptz - p.scheduled_at)) * 1000 AS lateness_ms,
             (d.attempts->-1->>'finishedAt')::timestamptz AS finished
      FROM deliveries d JOIN posts p ON p.id = d.post_id
      WHERE d.status = 'success' AND p.scheduled_at >= ${DateTime.formatIso(since)}`.pipe(Effect.orDie))

/** Milliseconds each unpublished delivery due since `since` has waited by `at`. */
const waitingSince = (since: DateTime.Utc, at: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly due: Date }>`
      SELECT p.scheduled_at AS due FROM deliveries d JOIN posts p ON p.id = d.post_id
      WHERE d.status <> 'success' AND p.scheduled_at >= ${DateTime.formatIso(since)}`.pipe(
      Effect.map((rows) => rows.map((row) => Math.max(0, at - row.due.getTime()))),
      Effect.orDie
    ))

const settledCount = (since: DateTime.Utc) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly n: number }>`
      SELECT count(*)::int AS n FROM deliveries d JOIN posts p ON p.id = d.post_id
      WHERE d.status IN ('success', 'failed') AND p.scheduled_at >= ${DateTime.formatIso(since)}`.pipe(
      Effect.map((rows) => rows[0]!.n),
      Effect.orDie
    ))

/** Busy CPU milliseconds of the whole machine so far (all cores; from /proc/stat; null elsewhere). */
const machineCpuMs = (): number | null => {
  try {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number)
    return (user! + nice! + system! + irq! + softirq! + steal!) * (1000 / 100)
  } catch {
    return null
  }
}

/** CPU milliseconds so far of the machine, the workers, and this process (the simulator and the bench's own polling). */
const cpuMs = () => ({
  machine: machineCpuMs(),
  workers: cpuMsOf(children.map((child) => child.pid!)),
  bench: (process.cpuUsage().user + process.cpuUsage().system) / 1000
})

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const seconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`

const startWorkers = () => {
  for (const name of ["bench-worker-1", "bench-worker-2"]) {
    const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "")
    const child = spawn(process.execPath, [`--max-semi-space-size=${workerSemiSpaceMb}`, ...nodeArgs, "--conditions=herald-source", "--import", "tsx", fileURLToPath(new URL("../packages/app/test/workers/worker-process.ts", import.meta.url))], {
      env: {
        ...process.env,
        DATABASE_URL: scoped.toString(),
        HERALD_SIMULATOR_URL: simulator.url,
        HERALD_CREDENTIALS_KEY: Redacted.value(credentialsKey),
        WORKER_NAME: name,
        WORKER_CONCURRENCY: String(workerConcurrency),
        DB_POOL: "10",
        POLL_MS: "200"
      },
      stdio: ["ignore", "inherit", "inherit"]
    })
    children.push(child)
  }
}

const program = Effect.gen(function*() {
  yield* ProjectAdmin.pipe(Effect.flatMap((projects) => projects.create(project)))
  yield* AccountAdmin.pipe(Effect.flatMap((accounts) => accounts.connect(account, { token: "bench" })))
  startWorkers()

  // 1. Lateness: due evenly over one minute, starting once the workers have had time to start.
  const minuteStart = DateTime.addDuration(yield* DateTime.now, "20 seconds")
  const insertedAt = yield* insertDue((index) => DateTime.add(minuteStart, { millis: Math.floor((index * spreadMillis) / posts) }))
  if (insertedAt > DateTime.toEpochMillis(minuteStart)) {
    return yield* Effect.dieMessage(`inserting the posts took until ${new Date(insertedAt).toISOString()}, past their due time: the lateness would count the setup`)
  }
  console.log(`phase 1: ${posts} posts due between ${DateTime.formatIso(minuteStart)} and one minute later; 2 worker processes (${workerConcurrency} in flight, --max-semi-space-size=${workerSemiSpaceMb})`)
  while ((yield* settledCount(minuteStart)) < posts) {
    yield* Effect.sleep("1 second")
    if (DateTime.toEpochMillis(yield* DateTime.now) > DateTime.toEpochMillis(minuteStart) + spreadMillis + 30_000) break
  }
  // Posts still waiting count with the time they have waited so far (a lower bound).
  const endedAt = DateTime.toEpochMillis(yield* DateTime.now)
  const published = (yield* outcomes(minuteStart)).map((row) => Number(row.lateness_ms))
  const waiting = yield* waitingSince(minuteStart, endedAt)
  const late = [...published, ...waiting].sort((a, b) => a - b)
  const p99 = percentile(late, 99)
  console.log(
    `lateness after the due time (${published.length}/${posts} published${waiting.length > 0 ? `; ${waiting.length} still waiting, counted as late as they are so far` : ""}):` +
      ` p50 ${seconds(percentile(late, 50))}, p99 ${seconds(p99)}, max ${seconds(late.at(-1)!)} (target p99 < 1 s: ${p99 < 1_000 ? "met" : "NOT met"})`
  )
  // Whatever phase 1 left is removed, so phase 2 measures its own backlog alone.
  yield* Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(sql`DELETE FROM posts WHERE id IN (SELECT post_id FROM deliveries WHERE status <> 'success')`))

  // 2. Throughput: a backlog due all at once. The clock starts at the due time, or at the insert's
  // commit if that came later (no worker could see a row before it).
  const burstDue = DateTime.addDuration(yield* DateTime.now, "2 seconds")
  const burstStart = Math.max(DateTime.toEpochMillis(burstDue), yield* insertDue(() => burstDue))
  const cpuBefore = cpuMs()
  const publishedBefore = simulator.network.size
  let done = 0
  let askedAt = 0
  while (done < posts && Date.now() - burstStart < drainLimitMillis) {
    yield* Effect.sleep("50 millis")
    // The database is asked only once the simulator (in memory, free to ask) has seen every post,
    // or once a second: the count is a join over 20,000 rows, and asking it every 250 ms took CPU
    // from the workers being measured (bench/README.md, Dispatch).
    if (simulator.network.size - publishedBefore < posts && Date.now() - askedAt < 1_000) continue
    askedAt = Date.now()
    done = yield* settledCount(burstDue)
  }
  const cpuAfter = cpuMs()
  const perDelivery = (of: keyof typeof cpuBefore, name: string) => {
    const before = cpuBefore[of]
    const after = cpuAfter[of]
    return before === null || after === null ? `${name} unknown` : `${name} ${((after - before) / done).toFixed(2)} ms`
  }
  const burst = (yield* outcomes(burstDue)).map((row) => row.finished!.getTime()).sort((a, b) => a - b)
  const drained = burst.length
  const spanMs = drained > 0 ? burst.at(-1)! - burstStart : 0
  const rate = drained / (spanMs / 1000)
  console.log(
    `throughput: ${drained}/${posts} due-at-once deliveries in ${seconds(spanMs)}: ${rate.toFixed(0)} deliveries/s` +
      ` (target >= 2000/s: ${rate >= 2000 ? "met" : "NOT met"})` +
      (done === 0 ? "" : `; CPU per delivery: ${perDelivery("machine", "whole machine")}, of which ${perDelivery("workers", "worker processes")}, ${perDelivery("bench", "simulator and bench")} (the rest is mostly PostgreSQL)`)
  )

  for (const child of children) child.kill("SIGTERM")
  yield* Effect.sleep("1 second")

  // 3. Baseline: phase 2's rows queued again, then handled with bare SQL: a claim of up to 16
  // through the same index, then per delivery the intent and the outcome, each its own commit.
  const sql = yield* SqlClient.SqlClient
  yield* Effect.orDie(sql`
    UPDATE deliveries SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, due_at = now()
    WHERE post_id IN (SELECT id FROM posts WHERE scheduled_at = ${DateTime.formatIso(burstDue)})`)
  const baseStart = Date.now()
  let baseDone = 0
  yield* Effect.forEach(Array.from({ length: baselineConnections }), () =>
    Effect.gen(function*() {
      while (Date.now() - baseStart < baselineMillis) {
        const claimed = yield* sql<{ readonly id: string }>`
          WITH due AS (
            SELECT id FROM deliveries
            WHERE status IN ('queued', 'unknown') AND due_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at <= now())
            ORDER BY due_at, id LIMIT ${baselineBatch} FOR UPDATE SKIP LOCKED)
          UPDATE deliveries d SET lease_owner = 'baseline', lease_expires_at = now() + interval '1 minute' FROM due WHERE d.id = due.id
          RETURNING d.id`
        if (claimed.length === 0) return
        for (const { id } of claimed) {
          yield* sql`UPDATE deliveries SET status = 'publishing', updated_at = now() WHERE id = ${id}`
          yield* sql`UPDATE deliveries SET status = 'success', lease_owner = NULL, lease_expires_at = NULL, updated_at = now() WHERE id = ${id}`
          baseDone++
        }
      }
    }).pipe(Effect.orDie), { concurrency: baselineConnections, discard: true })
  const baseRate = baseDone / ((Date.now() - baseStart) / 1000)
  console.log(
    `baseline: bare SQL (claim ${baselineBatch} at a time, then an intent and an outcome commit per delivery), ${baselineConnections} connections from one process:` +
      ` ${baseRate.toFixed(0)} deliveries/s (Herald reached ${(rate / baseRate * 100).toFixed(0)}% of it)`
  )
})

try {
  await runtime.runPromise(program)
} finally {
  for (const child of children) child.kill("SIGKILL")
  await runtime.dispose()
  await simulator.close()
  await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)).catch(() => undefined)
  await admin.dispose()
}
