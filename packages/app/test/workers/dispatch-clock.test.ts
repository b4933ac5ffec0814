import { describe, expect, layer } from "@effect/vitest"
import { AccountStore, beginAttempt, createPost, DeliveryQueue, Publishers } from "@herald/core"
import { SimulatorServer } from "@herald/publishers"
import { Chunk, DateTime, Duration, Effect, TestClock, TestServices } from "effect"
import { dispatchDueOnce, runPublishingDispatcher } from "../../src/workers/index.js"
import { clearDeliveries, eventsOf, loadRecord, seed, testOptions, world } from "./fixtures.js"

// No outcome linger: nothing advances the TestClock while an outcome would wait.
const options = testOptions({ worker: "clock-worker", leaseMillis: 60_000, outcomeLinger: Duration.zero })

const iso = (instant: DateTime.Utc) => DateTime.formatIso(instant)

const publishesOf = (marker: string) =>
  Effect.map(SimulatorServer, (server) => server.network.publishes().find((entry) => entry.marker === marker))

/** The simulator's publishers as a route without a look-up has them: no reconcile. */
const withoutLookUp = Effect.provideServiceEffect(Publishers, Effect.map(Publishers, (publishers) =>
  Publishers.of({
    forAccount: (account) => {
      const { reconcile: _, ...rest } = publishers.forAccount(account)
      return rest
    }
  })))

/** Due work is judged on Effect's Clock alone: TestClock decides what "now" is. */
layer(world({ latency: { minMs: 0, maxMs: 0 }, retryAfterSeconds: 120 }), { timeout: 60_000 })("dispatch on a TestClock", (it) => {
  describe("scheduling", () => {
    it.effect("a post scheduled at T is not claimed before T, and is published at T", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
        const at = DateTime.addDuration(yield* DateTime.now, Duration.hours(1))
        const created = yield* createPost(human, { caption: "Launch day", social_accounts: ["x:acme"], scheduled_at: iso(at) })
        expect(created.record.post.status).toBe("scheduled")
        expect(yield* dispatchDueOnce(options)).toEqual([])
        yield* TestClock.adjust(Duration.subtract(Duration.hours(1), Duration.millis(1)))
        expect(yield* dispatchDueOnce(options)).toEqual([])
        yield* TestClock.adjust(Duration.millis(1))
        expect(yield* dispatchDueOnce(options)).toEqual(["published"])
        const { deliveries, post } = yield* loadRecord(project.id, created.record.post.id)
        expect(post.status).toBe("posted")
        expect(deliveries[0]!.url).toMatch(/^https:\/\/x\.com\/acme\/status\/\d{19}$/)
        expect(DateTime.toEpochMillis(deliveries[0]!.attempts[0]!.startedAt)).toBe(DateTime.toEpochMillis(at))
        expect((yield* publishesOf(deliveries[0]!.id))?.postIds).toHaveLength(1)
      }))
  })

  describe("waking", () => {
    it.scoped("an idle dispatcher wakes when a scheduled post falls due, not at its next poll", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
        const at = DateTime.addDuration(yield* DateTime.now, Duration.minutes(10))
        const created = yield* createPost(human, { caption: "On the minute", social_accounts: ["x:acme"], scheduled_at: iso(at) })
        const statusOf = Effect.map(loadRecord(project.id, created.record.post.id), ({ post }) => post.status)
        // Its polls an hour apart: only a wake-up at the due time can publish the post at T.
        yield* Effect.forkScoped(runPublishingDispatcher({ ...options, pollInterval: Duration.hours(1) }))
        // Waits in real time (the dispatcher's queries do) for a condition.
        const eventually = <R>(check: Effect.Effect<boolean, never, R>) =>
          Effect.gen(function*() {
            for (let tries = 0; tries < 200; tries++) {
              if (yield* check) return true
              yield* TestServices.provideLive(Effect.sleep("25 millis"))
            }
            return false
          })
        const due = DateTime.toEpochMillis(at)
        expect(yield* eventually(Effect.map(TestClock.sleeps(), Chunk.some((wakesAt) => wakesAt === due)))).toBe(true)
        expect(yield* statusOf).toBe("scheduled")
        yield* TestClock.adjust(Duration.minutes(10))
        expect(yield* eventually(Effect.map(statusOf, (status) => status === "posted"))).toBe(true)
        const { deliveries } = yield* loadRecord(project.id, created.record.post.id)
        expect(DateTime.toEpochMillis(deliveries[0]!.attempts[0]!.startedAt)).toBe(due)
      }))
  })

  describe("backoff", () => {
    it.effect("a 429 waits for its Retry-After, longer than the backoff would, then publishes", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
        const created = yield* createPost(human, { caption: "Busy hour #sim-ratelimit", social_accounts: ["x:acme"] })
        const start = yield* DateTime.now
        expect(yield* dispatchDueOnce(options)).toEqual(["retrying"])
        const waiting = (yield* loadRecord(project.id, created.record.post.id)).deliveries[0]!
        expect(waiting.status).toBe("queued")
        expect(waiting.error).toMatchObject({ category: "rate_limited", code: "rate_limited" })
        // Retry-After is 120 s; the first backoff would be 7.5 to 15 s.
        expect(DateTime.toEpochMillis(waiting.dueAt!) - DateTime.toEpochMillis(start)).toBe(120_000)
        yield* TestClock.adjust(Duration.seconds(119))
        expect(yield* dispatchDueOnce(options)).toEqual([])
        yield* TestClock.adjust(Duration.seconds(1))
        expect(yield* dispatchDueOnce(options)).toEqual(["published"])
        const { deliveries, post } = yield* loadRecord(project.id, created.record.post.id)
        expect(post.status).toBe("posted")
        expect(deliveries[0]!.retries).toBe(1)
        expect(deliveries[0]!.attempts.map((attempt) => attempt.outcome)).toEqual(["failed", "success"])
      }))

    it.effect("a platform that stays down is retried on a jittered exponential schedule, then fails for good", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
        const created = yield* createPost(human, { caption: "Outage #sim-down", social_accounts: ["x:acme"] })
        const base = Duration.toMillis(options.backoffBase)
        const delays: Array<number> = []
        for (let attempt = 1; attempt < options.maxAttempts; attempt++) {
          const before = yield* DateTime.now
          expect(yield* dispatchDueOnce(options)).toEqual(["retrying"])
          const { dueAt } = (yield* loadRecord(project.id, created.record.post.id)).deliveries[0]!
          const delay = DateTime.toEpochMillis(dueAt!) - DateTime.toEpochMillis(before)
          const ceiling = base * 2 ** (attempt - 1)
          expect(delay).toBeGreaterThanOrEqual(ceiling / 2)
          expect(delay).toBeLessThanOrEqual(ceiling)
          delays.push(delay)
          // Not a moment early.
          yield* TestClock.adjust(Duration.millis(delay - 1))
          expect(yield* dispatchDueOnce(options)).toEqual([])
          yield* TestClock.adjust(Duration.millis(1))
        }
        expect(yield* dispatchDueOnce(options)).toEqual(["failed"])
        const { deliveries, post } = yield* loadRecord(project.id, created.record.post.id)
        expect(post.status).toBe("failed")
        expect(deliveries[0]!.attempts).toHaveLength(options.maxAttempts)
        expect(deliveries[0]!.error).toMatchObject({ category: "transient", code: "platform_unavailable" })
        expect(deliveries[0]!.error!.message).toContain(`gave up after ${options.maxAttempts} attempts`)
        expect((yield* eventsOf(project.id)).map((event) => event.kind)).toEqual(["post.failed"])
      }))
  })

  describe("lease expiry", () => {
    /** A worker that records its intent, makes the call (or not), and dies before recording the outcome. */
    const dieMidCall = (reachPlatform: boolean) =>
      Effect.gen(function*() {
        const queue = yield* DeliveryQueue
        const [claim] = yield* queue.claimDue({ now: yield* DateTime.now, limit: 1, leaseMillis: 60_000, worker: "doomed" })
        const { delivery } = yield* beginAttempt(claim!.projectId, claim!.deliveryId)
        if (reachPlatform) {
          const record = yield* loadRecord(claim!.projectId, claim!.postId)
          const accounts = yield* AccountStore.pipe(Effect.flatMap((store) => store.list(claim!.projectId)))
          const account = accounts.find((candidate) => candidate.id === delivery.accountId)!
          const publishers = yield* Publishers
          yield* publishers.forAccount(account).publish({ account, text: record.post.caption, media: [], configuration: undefined, marker: delivery.id })
        }
        return delivery
      })

    it.effect("a dead worker's claim is taken over after the lease and reconciled: posted once", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
        const created = yield* createPost(human, { caption: "Crash in the middle", social_accounts: ["x:acme"] })
        const delivery = yield* dieMidCall(true)
        expect(yield* dispatchDueOnce(options)).toEqual([])
        yield* TestClock.adjust(Duration.seconds(59))
        expect(yield* dispatchDueOnce(options)).toEqual([])
        yield* TestClock.adjust(Duration.seconds(1))
        expect(yield* dispatchDueOnce(options)).toEqual(["reconciled"])
        const { deliveries, post } = yield* loadRecord(project.id, created.record.post.id)
        expect(post.status).toBe("posted")
        expect(deliveries[0]!.attempts.map((attempt) => attempt.outcome)).toEqual(["reconciled"])
        expect((yield* publishesOf(delivery.id))).toMatchObject({ attempts: 1, postIds: [deliveries[0]!.platformPostId] })
      }))

    it.effect("a dead worker that never reached the platform: taken over, found missing, published once", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
        const created = yield* createPost(human, { caption: "Crash before the call", social_accounts: ["x:acme"] })
        const delivery = yield* dieMidCall(false)
        yield* TestClock.adjust(Duration.seconds(60))
        expect(yield* dispatchDueOnce(options)).toEqual(["published"])
        const { deliveries } = yield* loadRecord(project.id, created.record.post.id)
        expect(deliveries[0]!.attempts.map((attempt) => [attempt.outcome, attempt.error?.code ?? null])).toEqual([
          ["failed", "worker_lost"],
          ["success", null]
        ])
        expect((yield* publishesOf(delivery.id))?.postIds).toHaveLength(1)
      }))

    it.effect("a dead worker's claim on a route that cannot look posts up fails as outcome_unconfirmed: never sent twice", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
        const created = yield* createPost(human, { caption: "Crash without a look-up", social_accounts: ["x:acme"] })
        const delivery = yield* dieMidCall(true)
        yield* TestClock.adjust(Duration.seconds(60))
        expect(yield* withoutLookUp(dispatchDueOnce(options))).toEqual(["failed"])
        const { deliveries, post } = yield* loadRecord(project.id, created.record.post.id)
        expect(post.status).toBe("failed")
        expect(deliveries[0]!.error).toMatchObject({
          category: "outcome_unknown",
          code: "outcome_unconfirmed",
          message: expect.stringContaining("through the simulator route, which cannot look posts up")
        })
        expect(deliveries[0]!.attempts.map((attempt) => [attempt.outcome, attempt.error?.code ?? null])).toEqual([["failed", "outcome_unconfirmed"]])
        expect((yield* publishesOf(delivery.id))).toMatchObject({ attempts: 1 })
      }))
  })
})
