import { ConnectionHealth, ConnectionProbes, type Platform } from "@herald/core"
import { StorageLive } from "@herald/storage-postgres"
import { Duration, Effect, Fiber, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { databaseUrl, throwawaySchema } from "../TestDatabase.js"
import { type ConnectionCheckerOptions, defaultConnectionCheckerOptions, runConnectionChecker } from "../../src/workers/index.js"
import { credentialsKey, randomIds, seed } from "./fixtures.js"
import { tempDataDir } from "../TestHerald.js"

/** Probes that take a while and note who probed which account, and how many probed it at once. */
const probes = () => {
  const inFlight = new Map<string, number>()
  const byWorker = new Map<string, number>()
  let overlaps = 0
  const layer = (worker: string) =>
    Layer.succeed(ConnectionProbes, ConnectionProbes.of({
      forAccount: () =>
        Option.some({
          check: (account) =>
            Effect.acquireUseRelease(
              Effect.sync(() => {
                const now = (inFlight.get(account.id) ?? 0) + 1
                if (now > 1) overlaps++
                inFlight.set(account.id, now)
                byWorker.set(worker, (byWorker.get(worker) ?? 0) + 1)
              }),
              () => Effect.as(Effect.sleep(Duration.millis(15)), ConnectionHealth.Alive({ expiresAt: null, granted: [], needed: [] })),
              () => Effect.sync(() => inFlight.set(account.id, inFlight.get(account.id)! - 1))
            )
        })
    }))
  return { layer, byWorker, overlaps: () => overlaps }
}

describe.skipIf(databaseUrl === "")("connection checker on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", () => {
  let schema: Awaited<ReturnType<typeof throwawaySchema>> | undefined
  afterAll(() => schema?.drop())

  it("two checker workers, each with its own connection pool, never probe the same account at once", async () => {
    schema = await throwawaySchema("herald_checks")
    const counted = probes()
    // Every account due again at once after each check, so the two workers contend for all of them all the time.
    const options = (worker: string): ConnectionCheckerOptions => ({
      ...defaultConnectionCheckerOptions(),
      worker,
      every: Duration.millis(1),
      expiringEvery: Duration.millis(1),
      pollInterval: Duration.millis(5),
      batch: 4,
      concurrency: 4
    })
    const worker = (name: string) =>
      ManagedRuntime.make(Layer.mergeAll(
        StorageLive.layer({ databaseUrl: Option.some(Redacted.make(schema!.url)), dataDir: tempDataDir(), credentialsKey, maxConnections: 4 }),
        randomIds,
        counted.layer(name)
      ))
    // The first migrates the schema; the second starts on it.
    const one = worker("one")
    await one.runtime()
    const two = worker("two")
    await two.runtime()
    const usernames = Array.from({ length: 12 }, (_, index) => ["x", `account_${index}`] as const satisfies readonly [Platform, string])
    await one.runPromise(seed({ accounts: usernames }))
    const fibers = [one.runFork(runConnectionChecker(options("one"))), two.runFork(runConnectionChecker(options("two")))]
    await new Promise((done) => setTimeout(done, 3_000))
    await Promise.all([one.runPromise(Fiber.interrupt(fibers[0]!)), two.runPromise(Fiber.interrupt(fibers[1]!))])
    await Promise.all([one.dispose(), two.dispose()])
    expect(counted.overlaps()).toBe(0)
    // Both did work, and each account was checked many times over: the leases were contended.
    expect(counted.byWorker.get("one") ?? 0).toBeGreaterThan(12)
    expect(counted.byWorker.get("two") ?? 0).toBeGreaterThan(12)
  }, 60_000)
})
