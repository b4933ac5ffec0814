import { describe, expect, layer } from "@effect/vitest"
import {
  createPost,
  insights,
  MetricsSources,
  MetricsStore,
  metricsOfPost,
  PlatformCallFailed
} from "@herald/core"
import { DateTime, Duration, Effect, Layer, Option, TestClock } from "effect"
import { databaseUrl } from "../TestDatabase.js"
import { defaultMetricsSyncOptions, dispatchDueOnce, type MetricsSyncOptions, syncMetricsOnce } from "../../src/workers/index.js"
import { clearDeliveries, loadRecord, pglite, postgresOnThrowawaySchema, seed, testOptions, world } from "./fixtures.js"

const options: MetricsSyncOptions = { ...defaultMetricsSyncOptions(), worker: "metrics-worker", concurrency: 50 }
const dispatch = testOptions({ worker: "dispatch-worker", outcomeLinger: Duration.zero })

/** The simulator's metrics, except that `limited` answers with its rate limit (Retry-After 120 s). */
const rateLimited = (limited: string) =>
  Effect.map(MetricsSources, (sources) =>
    MetricsSources.of({
      forAccount: (account) =>
        account.platform === limited
          ? Option.some({
            fetch: () =>
              Effect.fail(new PlatformCallFailed({ error: { category: "rate_limited", code: "rate_limited", message: "slow down" }, retryAfterMs: 120_000 }))
          })
          : sources.forAccount(account)
    }))

const suite = (storage: Parameters<typeof world>[1]) =>
  layer(world({ latency: { minMs: 0, maxMs: 0 } }, storage), { timeout: 60_000 })

const cases = (it: Parameters<Parameters<ReturnType<typeof suite>>[1]>[0]) => {
  it.effect("a post published to the simulator shows metrics after its first sync, 15 minutes on, then every 6 hours", () =>
    Effect.gen(function*() {
      yield* clearDeliveries
      const { human, project } = yield* seed({ accounts: [["x", "acme"], ["pinterest", "acme"]] })
      const created = yield* createPost(human, { caption: "Count me", social_accounts: ["x:acme"] })
      expect(yield* dispatchDueOnce(dispatch)).toEqual(["published"])
      const postId = created.record.post.id
      expect((yield* metricsOfPost(human, postId)).data).toEqual([])
      expect(yield* syncMetricsOnce(options)).toEqual([])
      yield* adjust(Duration.subtract(Duration.minutes(15), Duration.millis(1)))
      expect(yield* syncMetricsOnce(options)).toEqual([])
      yield* adjust(Duration.millis(1))
      expect(yield* syncMetricsOnce(options)).toEqual(["Reported"])
      const [row] = (yield* metricsOfPost(human, postId)).data
      const delivery = (yield* loadRecord(project.id, postId)).deliveries[0]!
      expect(row).toMatchObject({ delivery_id: delivery.id, platform: "x", url: delivery.url, saves: null, unreportable: null })
      expect(row!.views).toBeGreaterThan(0)
      expect((yield* insights(human, { sinceDays: 30, platform: null, format: null })).coverage).toMatchObject({ deliveries: 1, with_metrics: 1 })
      // Not again before 6 hours; then again. The simulator reads the wall clock, not the test's, so
      // it reports the same numbers: the sync moves synced_at and the history keeps its one point.
      yield* adjust(Duration.subtract(Duration.hours(6), Duration.millis(1)))
      expect(yield* syncMetricsOnce(options)).toEqual([])
      yield* adjust(Duration.millis(1))
      expect(yield* syncMetricsOnce(options)).toEqual(["Reported"])
      const [again] = (yield* metricsOfPost(human, postId)).data
      expect(again!.views).toBe(row!.views)
      expect(DateTime.distance(DateTime.unsafeMake(row!.synced_at), DateTime.unsafeMake(again!.synced_at))).toBe(Duration.toMillis(Duration.hours(6)))
      expect(yield* MetricsStore.pipe(Effect.flatMap((store) => store.history(delivery.id)))).toHaveLength(1)
    }))

  it.effect("a platform's rate limit pauses that platform only, until its Retry-After", () =>
    Effect.gen(function*() {
      yield* clearDeliveries
      const { human } = yield* seed({ accounts: [["x", "acme"], ["bluesky", "acme"]] })
      yield* createPost(human, { caption: "One", social_accounts: ["x:acme", "bluesky:acme"] })
      yield* createPost(human, { caption: "Two", social_accounts: ["x:acme", "bluesky:acme"] })
      expect(yield* dispatchDueOnce(dispatch)).toHaveLength(4)
      yield* adjust(Duration.minutes(15))
      const sources = yield* rateLimited("x")
      const sync = () => syncMetricsOnce({ ...options, concurrency: 1 }).pipe(Effect.provideService(MetricsSources, sources))
      // One at a time: x's first answer pauses x, bluesky goes on.
      const outcomes: Array<string> = []
      for (let pass = 0; pass < 4; pass++) outcomes.push(...(yield* sync()))
      expect(outcomes.filter((outcome) => outcome === "Reported")).toHaveLength(2)
      expect(outcomes.filter((outcome) => outcome === "Later")).toHaveLength(1)
      // The other x delivery is not claimed while x is paused, by this worker or any other.
      expect(yield* syncMetricsOnce(options)).toEqual([])
      yield* adjust(Duration.minutes(2))
      expect(yield* syncMetricsOnce(options)).toEqual(["Reported", "Reported"])
    }))

  it.effect("a worker that dies mid-sync loses nothing: its lease lapses and another worker syncs the delivery", () =>
    Effect.gen(function*() {
      yield* clearDeliveries
      const { human } = yield* seed({ accounts: [["threads", "acme"]] })
      const created = yield* createPost(human, { caption: "Survive", social_accounts: ["threads:acme"] })
      yield* dispatchDueOnce(dispatch)
      yield* adjust(Duration.minutes(15))
      const store = yield* MetricsStore
      // Claimed, then its worker is gone without a word.
      const claimed = yield* store.claimDue({ now: yield* DateTime.now, limit: 10, leaseMillis: options.leaseMillis, worker: "dead", schedule: options.schedule })
      expect(claimed).toHaveLength(1)
      expect(yield* syncMetricsOnce(options)).toEqual([])
      yield* adjust(Duration.millis(options.leaseMillis))
      expect(yield* syncMetricsOnce(options)).toEqual(["Reported"])
      expect((yield* metricsOfPost(human, created.record.post.id)).data).toHaveLength(1)
    }))
}

const adjust = (duration: Duration.Duration) => TestClock.adjust(duration)

suite(pglite())("metrics sync on a TestClock, embedded database", cases)
describe.skipIf(databaseUrl === "")("metrics sync on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", () => {
  suite(Layer.suspend(() => postgresOnThrowawaySchema(databaseUrl)))("metrics sync on a TestClock, PostgreSQL", cases)
})
