import { SqlClient } from "@effect/sql"
import { ClassifiersUnavailable, createPost, pausePublishing, resumePublishing } from "@herald/core"
import { plainApprovalLinks } from "@herald/core/memory"
import type { PublishRecord } from "@herald/publishers"
import { StorageLive } from "@herald/storage-postgres"
import { DateTime, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import type { ChildProcess } from "node:child_process"
import { sourceScript } from "../HeraldProcess.js"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { databaseUrl as url, throwawaySchema } from "../TestDatabase.js"
import { credentialsKey, randomIds, seed } from "./fixtures.js"

const posts = 240
/** The bound: a pause stops every delivery not yet handed to a platform within this. */
const stopWithinMs = 2_000
const workerCount = 2
const concurrency = 4

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface DeliveryRow {
  readonly id: string
  readonly status: string
  readonly due_at: Date
  readonly attempts: ReadonlyArray<{ readonly startedAt: string }>
}

describe.skipIf(url === "")("emergency stop across worker processes on PostgreSQL (needs DATABASE_URL)", () => {
  it(`a pause stops ${workerCount} busy workers within ${stopWithinMs} ms; resume publishes the rest in due order, once each`, async () => {
    const schema = await throwawaySchema("herald_stop")
    const runtime = ManagedRuntime.make(Layer.mergeAll(
      StorageLive.layer({ databaseUrl: Option.some(Redacted.make(schema.url)), dataDir: "unused", credentialsKey }),
      randomIds,
      ClassifiersUnavailable,
      plainApprovalLinks
    ))
    const children = new Set<ChildProcess>()
    try {
      const world = await runtime.runPromise(seed({ accounts: [["x", "acme"], ["bluesky", "acme"]] }))
      const deliveries = () =>
        runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<DeliveryRow>`SELECT id, status, due_at, attempts FROM deliveries WHERE project_id = ${world.project.id} ORDER BY due_at, id`
        ).pipe(Effect.orDie))

      const simulator = sourceScript(here("../../../publishers/src/simulator/serve.ts"), ["--port", "0", "--latency", "40-80"], {}, "pipe")
      children.add(simulator)
      const [line] = await new Promise<Array<string>>((resolve) =>
        createInterface({ input: simulator.stdout! }).once("line", (first) => resolve([first]))
      )
      const simulatorUrl = (JSON.parse(line!) as { url: string }).url
      const publishRequests = async () => {
        const { publishes } = await fetch(`${simulatorUrl}/_sim/publishes`).then((response) => response.json()) as {
          publishes: ReadonlyArray<PublishRecord>
        }
        return publishes
      }

      // Due now, spaced a millisecond apart so the due order is strict.
      const start = await runtime.runPromise(DateTime.now)
      await runtime.runPromise(Effect.forEach(Array.from({ length: posts }, (_, index) => index), (index) =>
        createPost(world.human, {
          caption: `post ${index}`,
          social_accounts: ["x:acme", "bluesky:acme"],
          scheduled_at: DateTime.formatIso(DateTime.add(start, { millis: index }))
        }), { concurrency: 8, discard: true }))

      for (let n = 1; n <= workerCount; n++) {
        children.add(sourceScript(here("./worker-process.ts"), [], {
          DATABASE_URL: schema.url,
          HERALD_SIMULATOR_URL: simulatorUrl,
          HERALD_CREDENTIALS_KEY: Redacted.value(credentialsKey),
          WORKER_NAME: `stop-worker-${n}`,
          WORKER_CONCURRENCY: String(concurrency),
          POLL_MS: "200",
          DB_POOL: "4"
        }, "inherit"))
      }

      // Both workers busy: wait until a sixth of the deliveries went out, then pull the switch.
      const deadline = Date.now() + 90_000
      while ((await deliveries()).filter((row) => row.status === "success").length < posts * 2 / 6) {
        expect(Date.now(), "workers publish before the pause").toBeLessThan(deadline)
        await sleep(50)
      }
      await runtime.runPromise(pausePublishing({ project: world.project.id }, "test stop"))
      const pausedAt = Date.now()

      // Created during the pause, due during it: accepted, and told publishing is paused.
      const duringPause = await runtime.runPromise(createPost(world.human, {
        caption: "created during the pause",
        social_accounts: ["x:acme"],
        scheduled_at: DateTime.formatIso(DateTime.unsafeMake(pausedAt + 500))
      }))
      expect(duringPause.message).toContain("Publishing is paused for this project")

      await sleep(stopWithinMs)
      const requestsAtBound = (await publishRequests()).reduce((sum, record) => sum + record.attempts, 0)
      await sleep(3_000)
      const requestsLater = (await publishRequests()).reduce((sum, record) => sum + record.attempts, 0)
      const held = await deliveries()
      const started = held.filter((row) => row.attempts.length > 0)
      const lastStart = Math.max(...started.map((row) => Date.parse(row.attempts[0]!.startedAt)))
      console.log(
        `emergency stop: ${started.length} of ${held.length} deliveries started before the pause took hold; ` +
          `the last one ${lastStart - pausedAt} ms after the pause returned`
      )
      expect(lastStart - pausedAt, "no delivery started later than the bound after the pause").toBeLessThanOrEqual(stopWithinMs)
      expect(requestsLater, "the platform received nothing after the bound").toBe(requestsAtBound)
      const waiting = held.filter((row) => row.attempts.length === 0)
      expect(waiting.length, "most deliveries wait").toBeGreaterThan(posts)
      // Nothing was lost or changed: still queued, due as they were.
      for (const row of waiting) expect(row.status).toBe("queued")

      const resumedAt = Date.now()
      await runtime.runPromise(resumePublishing({ project: world.project.id }))
      while ((await deliveries()).some((row) => row.status !== "success")) {
        expect(Date.now(), "every delivery goes out after resume").toBeLessThan(resumedAt + 90_000)
        await sleep(100)
      }
      const done = await deliveries()
      expect(done).toHaveLength(posts * 2 + 1)
      const byMarker = new Map((await publishRequests()).map((record) => [record.marker, record]))
      for (const row of done) {
        expect(row.attempts, `delivery ${row.id} tried once`).toHaveLength(1)
        expect(byMarker.get(row.id)?.postIds, `delivery ${row.id} published exactly once`).toHaveLength(1)
      }
      // Due order: what waited is started in the order it fell due, give or take what the workers
      // hold at once. Each claims in due order, but two claim side by side and a process that
      // stalls (a shared 2-core machine) starts what it holds late while the other goes on: the
      // bound is a few claims' worth, far below what any other order would give (hundreds).
      // In due order as they waited (a settled delivery's due_at is cleared); the one created during the pause is among them.
      const doneById = new Map(done.map((row) => [row.id, row]))
      const resumed = waiting.map((row) => doneById.get(row.id)!)
      expect(waiting.map((row) => row.id)).toContain(duringPause.record.deliveries[0]!.id)
      const startedOrder = [...resumed].sort((a, b) => Date.parse(a.attempts[0]!.startedAt) - Date.parse(b.attempts[0]!.startedAt))
      const displacement = Math.max(...startedOrder.map((row, rank) => Math.abs(rank - resumed.indexOf(row))))
      console.log(`emergency stop: after resume, ${resumed.length} deliveries started at most ${displacement} places from their due order`)
      expect(displacement).toBeLessThanOrEqual(4 * workerCount * concurrency)
      for (const row of resumed) expect(Date.parse(row.attempts[0]!.startedAt)).toBeGreaterThanOrEqual(resumedAt)
    } finally {
      for (const child of children) child.kill("SIGKILL")
      await runtime.dispose()
      await schema.drop().catch(() => undefined)
    }
  }, 240_000)
})
