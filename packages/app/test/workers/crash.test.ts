import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { ClassifiersUnavailable, createPost } from "@herald/core"
import { plainApprovalLinks } from "@herald/core/memory"
import type { PublishRecord } from "@herald/publishers"
import { StorageLive } from "@herald/storage-postgres"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import type { ChildProcess } from "node:child_process"
import { sourceScript } from "../HeraldProcess.js"
import { randomBytes } from "node:crypto"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { credentialsKey, randomIds, seed } from "./fixtures.js"

const url = process.env.DATABASE_URL ?? ""
const posts = 1_000

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A post's caption: mostly plain, some that rate-limit, fail once with a 5xx, or time out (reconciled). */
const captionOf = (index: number) =>
  index % 20 === 0 ? `post ${index} #sim-timeout` : index % 15 === 0 ? `post ${index} #sim-ratelimit` : index % 10 === 0 ? `post ${index} #sim-5xx` : `post ${index}`

describe.skipIf(url === "")("crash test with real processes on PostgreSQL (needs DATABASE_URL)", () => {
  it(`SIGKILLed workers lose nothing and publish each of ${posts} posts' deliveries exactly once`, async () => {
    const schema = `herald_crash_${randomBytes(6).toString("hex")}`
    const scoped = new URL(url)
    scoped.searchParams.set("options", `-c search_path=${schema}`)
    const admin = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
    await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`))
    const runtime = ManagedRuntime.make(Layer.mergeAll(
      StorageLive.layer({ databaseUrl: Option.some(Redacted.make(scoped.toString())), dataDir: "unused", credentialsKey }),
      randomIds,
      ClassifiersUnavailable,
      plainApprovalLinks
    ))
    const children = new Set<ChildProcess>()
    try {
      // The posts, created before any worker runs (so the kills land while all of them are due).
      const seeded = await runtime.runPromise(Effect.gen(function*() {
        const world = yield* seed({ accounts: [["x", "acme"], ["bluesky", "acme"], ["x", "partial_fail"]] })
        yield* Effect.forEach(Array.from({ length: posts }, (_, index) => index), (index) =>
          createPost(world.human, {
            caption: captionOf(index),
            social_accounts: index % 50 === 0 ? ["x:acme", "x:partial_fail"] : ["x:acme", "bluesky:acme"]
          }), { concurrency: 8, discard: true })
        return world
      }))

      const createdAt = Date.now()
      const simulator = sourceScript(here("../../../publishers/src/simulator/serve.ts"), [
        "--port", "0", "--latency", "5-40", "--retry-after", "1", "--timeout-hold", "1500"
      ], {}, "pipe")
      children.add(simulator)
      const [line] = await new Promise<Array<string>>((resolve) =>
        createInterface({ input: simulator.stdout! }).once("line", (first) => resolve([first]))
      )
      const simulatorUrl = (JSON.parse(line!) as { url: string }).url

      let started = 0
      const startWorker = () => {
        const child = sourceScript(here("./worker-process.ts"), [], {
          DATABASE_URL: scoped.toString(),
          HERALD_SIMULATOR_URL: simulatorUrl,
          HERALD_CREDENTIALS_KEY: Redacted.value(credentialsKey),
          WORKER_NAME: `crash-worker-${++started}`,
          WORKER_CONCURRENCY: "8",
          LEASE_MS: "2000",
          PUBLISH_TIMEOUT_MS: "700",
          RECHECK_MS: "300",
          BACKOFF_MS: "200",
          POLL_MS: "200",
          DB_POOL: "4"
        }, "inherit")
        children.add(child)
        child.once("exit", () => children.delete(child))
        return child
      }
      const workers = [startWorker(), startWorker()]

      const pending = () =>
        runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ readonly n: number }>`
            SELECT count(*)::int AS n FROM posts WHERE status NOT IN ('posted', 'partial', 'failed')`.pipe(
            Effect.map((rows) => rows[0]!.n),
            Effect.orDie
          )))

      // Kill a random worker at a random moment, again and again, starting a new one each time.
      let kills = 0
      const deadline = Date.now() + 150_000
      while ((await pending()) > 0) {
        expect(Date.now(), "every post settles within the time limit").toBeLessThan(deadline)
        await sleep(400 + Math.random() * 1_600)
        if (kills < 12 && Date.now() < deadline - 60_000) {
          const victim = Math.floor(Math.random() * workers.length)
          workers[victim]!.kill("SIGKILL")
          kills++
          workers[victim] = startWorker()
        }
      }
      for (const worker of workers) worker.kill("SIGTERM")
      const settledAt = Date.now()

      const publishes = await fetch(`${simulatorUrl}/_sim/publishes`).then((response) => response.json()) as {
        publishes: ReadonlyArray<PublishRecord>
      }
      const byMarker = new Map(publishes.publishes.map((record) => [record.marker, record]))
      const { deliveries, events, postStatuses } = await runtime.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return {
          postStatuses: yield* sql<{ readonly status: string; readonly n: number }>`
            SELECT status, count(*)::int AS n FROM posts GROUP BY status ORDER BY status`,
          deliveries: yield* sql<{ readonly id: string; readonly status: string; readonly platform_post_id: string | null; readonly username: string }>`
            SELECT id, status, platform_post_id, username FROM deliveries`,
          events: yield* sql<{ readonly kind: string; readonly n: number }>`
            SELECT kind, count(*)::int AS n FROM outbox_events WHERE project_id = ${seeded.project.id} GROUP BY kind ORDER BY kind`
        }
      }).pipe(Effect.orDie))

      const [recovered] = await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ readonly reconciled: number; readonly lost: number }>`
          SELECT count(*) FILTER (WHERE attempts::text LIKE '%"reconciled"%')::int AS reconciled,
                 count(*) FILTER (WHERE attempts::text LIKE '%worker_lost%')::int AS lost
          FROM deliveries`).pipe(Effect.orDie))
      console.log(
        `crash test: ${kills} SIGKILLs over ${started} worker processes; settled ${(settledAt - createdAt) / 1000} s after the posts were written; ` +
          `${recovered!.reconciled} deliveries reconciled after an unknown outcome, ${recovered!.lost} re-sent after a worker died before the platform saw them`
      )
      expect(kills).toBeGreaterThanOrEqual(5)
      expect(postStatuses).toEqual([{ status: "partial", n: posts / 50 }, { status: "posted", n: posts - posts / 50 }])
      // Each post settled exactly once: one event each, none lost, none doubled.
      expect(events).toEqual([{ kind: "post.published", n: posts }])
      expect(deliveries).toHaveLength(posts * 2)
      for (const delivery of deliveries) {
        const record = byMarker.get(delivery.id)
        if (delivery.username === "partial_fail") {
          expect(delivery.status).toBe("failed")
          expect(record?.postIds ?? []).toEqual([])
        } else {
          expect(delivery.status, `delivery ${delivery.id}`).toBe("success")
          expect(record?.postIds, `delivery ${delivery.id} is published exactly once`).toEqual([delivery.platform_post_id])
        }
      }
      const created = publishes.publishes.reduce((sum, record) => sum + record.postIds.length, 0)
      expect(created).toBe(posts * 2 - posts / 50)
    } finally {
      for (const child of children) child.kill("SIGKILL")
      await runtime.dispose()
      await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)).catch(() => undefined)
      await admin.dispose()
    }
  }, 180_000)
})
