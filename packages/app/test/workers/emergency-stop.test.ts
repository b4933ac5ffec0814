import { describe, expect, layer } from "@effect/vitest"
import {
  createPost,
  DeliveryQueue,
  dispatchStore,
  pausePublishing,
  platformCalls,
  projectPublishing,
  projectViews,
  resumePublishing
} from "@herald/core"
import { DateTime, Duration, Effect, TestClock } from "effect"
import { dispatchDueOnce, processClaim } from "../../src/workers/index.js"
import { clearDeliveries, loadRecord, seed, testOptions, world } from "./fixtures.js"

const options = testOptions({ worker: "stop-worker", outcomeLinger: Duration.zero })
const iso = (instant: DateTime.Utc) => DateTime.formatIso(instant)

/** The emergency stop on the embedded database, its time on a TestClock. */
layer(world({ latency: { minMs: 0, maxMs: 0 } }), { timeout: 60_000 })("emergency stop", (it) => {
  describe("a paused project", () => {
    it.effect("keeps every post due, publishes nothing, and on resume publishes what fell due in due order, past the 2-minute grace", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const paused = yield* seed({ accounts: [["x", "acme"]] })
        const running = yield* seed({ accounts: [["bluesky", "other"]] })
        yield* pausePublishing({ project: paused.project.id }, "brand review")
        expect(yield* projectPublishing(paused.project.id)).toMatchObject({ paused: true, scope: "project", reason: "brand review" })
        expect(yield* projectPublishing(running.project.id)).toMatchObject({ paused: false, scope: null })

        const now = yield* DateTime.now
        const later = yield* createPost(paused.human, {
          caption: "second: due in a minute",
          social_accounts: ["x:acme"],
          scheduled_at: iso(DateTime.addDuration(now, Duration.minutes(1)))
        })
        const first = yield* createPost(paused.human, { caption: "first: due now", social_accounts: ["x:acme"] })
        // Accepted, and the reply says why it will not go out yet.
        expect(first.record.post.status).toBe("processing")
        expect(first.message).toContain("Publishing is paused for this project")
        expect(later.message).toContain("Publishing is paused for this project")
        const elsewhere = yield* createPost(running.human, { caption: "not paused", social_accounts: ["bluesky:other"] })
        expect(elsewhere.message).not.toContain("paused")

        // Only the other project's delivery is claimed, now and ten minutes on.
        expect(yield* dispatchDueOnce(options)).toEqual(["published"])
        yield* TestClock.adjust(Duration.minutes(10))
        expect(yield* dispatchDueOnce(options)).toEqual([])
        for (const created of [first, later]) {
          const { deliveries, post } = yield* loadRecord(paused.project.id, created.record.post.id)
          expect(post.status).toBe(created.record.post.status)
          expect(deliveries[0]).toMatchObject({ status: "queued", attempts: [] })
          expect(iso(deliveries[0]!.dueAt!)).toBe(iso(created.record.deliveries[0]!.dueAt!))
        }

        const resumed = yield* resumePublishing({ project: paused.project.id })
        expect(resumed.lifted).toMatchObject({ scope: "project", project_id: paused.project.id, reason: "brand review" })
        expect(resumed.in_force).toEqual([])
        // One at a time, so the order is the claim's: the earlier due first, though both are long past the grace.
        expect(yield* dispatchDueOnce({ ...options, concurrency: 1 })).toEqual(["published"])
        expect((yield* loadRecord(paused.project.id, first.record.post.id)).post.status).toBe("posted")
        expect((yield* loadRecord(paused.project.id, later.record.post.id)).post.status).toBe("scheduled")
        expect(yield* dispatchDueOnce({ ...options, concurrency: 1 })).toEqual(["published"])
        expect((yield* loadRecord(paused.project.id, later.record.post.id)).post.status).toBe("posted")
      }))

    it.effect("a delivery claimed before the pause is not sent: it stays queued, due as it was, and its lease is released", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
        const created = yield* createPost(human, { caption: "claimed, then stopped", social_accounts: ["x:acme"] })
        const queue = yield* DeliveryQueue
        const claims = yield* queue.claimDue({ now: yield* DateTime.now, limit: 8, leaseMillis: options.leaseMillis, worker: options.worker })
        expect(claims).toHaveLength(1)
        yield* pausePublishing({ project: project.id }, null)
        const outcome = yield* Effect.scoped(Effect.gen(function*() {
          const context = {
            policy: options,
            store: yield* dispatchStore(options.outcomeLinger),
            calls: yield* platformCalls(options.publishTimeout),
            views: yield* projectViews
          }
          return yield* processClaim(claims[0]!, options, context, new Set([claims[0]!.deliveryId]))
        }))
        expect(outcome).toBe("paused")
        const { deliveries } = yield* loadRecord(project.id, created.record.post.id)
        expect(deliveries[0]).toMatchObject({ status: "queued", attempts: [] })
        yield* resumePublishing({ project: project.id })
        // Released: claimable at once rather than after the lease.
        expect(yield* dispatchDueOnce(options)).toEqual(["published"])
      }))
  })

  describe("the instance's pause", () => {
    it.effect("holds every project; lifting a project's own pause does not lift it; a second pause keeps the first", () =>
      Effect.gen(function*() {
        yield* clearDeliveries
        const a = yield* seed({ accounts: [["x", "a"]] })
        const b = yield* seed({ accounts: [["x", "b"]] })
        const first = yield* pausePublishing("instance", "incident 42")
        const again = yield* pausePublishing("instance", "a second click")
        expect(again).toEqual(first)
        yield* pausePublishing({ project: a.project.id }, "own")
        const created = yield* createPost(b.human, { caption: "held by the instance", social_accounts: ["x:b"] })
        expect(created.message).toContain("Publishing is paused on this Herald instance")
        yield* createPost(a.human, { caption: "held twice", social_accounts: ["x:a"] })
        expect(yield* dispatchDueOnce(options)).toEqual([])

        const liftedA = yield* resumePublishing({ project: a.project.id })
        expect(liftedA.lifted).toMatchObject({ scope: "project", reason: "own" })
        expect(liftedA.in_force).toMatchObject([{ scope: "instance", project_id: null, reason: "incident 42" }])
        expect(yield* projectPublishing(a.project.id)).toMatchObject({ paused: true, scope: "instance" })
        expect(yield* dispatchDueOnce(options)).toEqual([])

        const liftedAll = yield* resumePublishing("instance")
        expect(liftedAll.lifted).toMatchObject({ scope: "instance" })
        expect((yield* resumePublishing("instance")).lifted).toBeNull()
        expect(yield* dispatchDueOnce(options)).toEqual(["published", "published"])
      }))
  })
})
