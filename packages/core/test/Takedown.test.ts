import { describe, expect, it } from "@effect/vitest"
import {
  AlreadyGone,
  AttemptResult,
  beginAttempt,
  createPost,
  type DeliveryId,
  finishAttempt,
  type OutcomeUnknown,
  PostChange,
  PostStore,
  type Publisher,
  PublishFailed,
  takedownDelivery,
  takedownCallLimit,
  takedownBy,
  takedownLease,
  toReceiptEntry
} from "@herald/core"
import { publishersOf, RecordingPublisher } from "@herald/core/memory"
import { DateTime, Deferred, Duration, Effect, Fiber, Queue, TestClock } from "effect"
import { makeWorld } from "./World.js"

type Answer = Deferred.Deferred<void, PublishFailed | OutcomeUnknown | AlreadyGone>

/** A world with one post delivered to x through `platform`, given the queue its takedowns may offer their calls to. */
const deliveredThrough = (platformOf: (calls: Queue.Queue<Answer>) => Publisher) => Effect.gen(function*() {
  const world = makeWorld({ approval: "autopilot", platforms: ["x"] })
  const calls = yield* Queue.unbounded<Answer>()
  const platform = platformOf(calls)
  const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.provide(publishersOf(platform)), Effect.provide(world.layer))
  const { record } = yield* provide(createPost(world.human, { caption: "Live, then removed", social_accounts: ["x:acme_x"] }))
  const id = record.deliveries[0]!.id as DeliveryId
  yield* provide(beginAttempt(world.projectId, id))
  yield* provide(finishAttempt(world.projectId, id, AttemptResult.Published({ platformPostId: "x-1", url: "https://x.test/1", note: null, followUpPostIds: [], reconciled: false })))
  const stored = () => world.data.posts.get(record.post.id)!.deliveries[0]!
  const takedown = (key = world.human) => provide(takedownDelivery(key, id))
  return { world, calls, id, stored, takedown, provide }
})

/**
 * One post delivered to x, whose platform holds every takedown until the test takes the call
 * from `calls` and answers it: the count of calls taken is what the platform received.
 */
const delivered = deliveredThrough((calls) => ({
  ...new RecordingPublisher(),
  takedown: () => Effect.flatMap(Deferred.make<void, PublishFailed | OutcomeUnknown | AlreadyGone>(), (answer) =>
    Effect.zipRight(Queue.offer(calls, answer), Deferred.await(answer)))
}))

const refused = (code: string) => ({ _tag: "StateConflict", code })

describe("takedown: the intent is recorded before the platform call", () => {
  it.effect("a takedown during the first or after it gets 409 delivery_taken_down; the platform gets one call", () =>
    Effect.gen(function*() {
      const { calls, stored, takedown, world } = yield* delivered
      const first = yield* Effect.fork(takedown())
      const call = yield* Queue.take(calls)
      expect(stored()).toMatchObject({ status: "success", takedown: { by: world.human.keyId } })
      // The receipt still shows the post live: it is, until the platform confirms.
      expect(toReceiptEntry(stored())).toMatchObject({ status: "success", taken_down_at: null, taken_down_by: null })
      expect(yield* Effect.flip(takedown(world.agent))).toMatchObject(refused("delivery_taken_down"))
      yield* Deferred.succeed(call, undefined)
      const done = yield* Fiber.join(first)
      expect(done.delivery).toMatchObject({ status: "taken_down", takedown: { by: world.human.keyId } })
      expect(toReceiptEntry(stored())).toMatchObject({ status: "taken_down", taken_down_by: world.human.keyId, taken_down_at: expect.any(String) })
      expect(yield* Effect.flip(takedown())).toMatchObject(refused("delivery_taken_down"))
      expect(yield* Queue.size(calls)).toBe(0)
    }))

  it.effect("a route without a takedown is refused with takedown_unsupported before anything is recorded", () =>
    Effect.gen(function*() {
      const { id, stored, takedown } = yield* deliveredThrough(() => ({ publish: new RecordingPublisher().publish }))
      const before = stored()
      expect(yield* Effect.flip(takedown())).toMatchObject({
        ...refused("takedown_unsupported"),
        detail: `x does not let Herald delete posts of @acme_x (route simulator): remove delivery ${id}'s post in the x app; its receipt is unchanged`
      })
      expect(stored()).toEqual(before)
    }))

  it.effect("a platform refusal answers takedown_failed to that caller and the receipt returns to what it was", () =>
    Effect.gen(function*() {
      const { calls, stored, takedown } = yield* delivered
      const before = stored()
      const first = yield* Effect.fork(takedown())
      yield* Deferred.fail(yield* Queue.take(calls), new PublishFailed({
        error: { category: "auth_expired", code: "token_expired", message: "x:acme_x: the token has expired" },
        transient: false,
        retryAfterMs: null
      }))
      expect(yield* Effect.flip(Fiber.join(first))).toMatchObject({ _tag: "TakedownFailed", category: "auth_expired" })
      expect(stored()).toMatchObject({ status: "success", takedown: null, platformPostId: before.platformPostId })
      expect(toReceiptEntry(stored())).toEqual(toReceiptEntry(before))
      // Nothing holds the delivery: the next takedown calls the platform again.
      const second = yield* Effect.fork(takedown())
      yield* Deferred.succeed(yield* Queue.take(calls), undefined)
      expect((yield* Fiber.join(second)).delivery.status).toBe("taken_down")
    }))

  it.effect("a call without an answer in time fails as unknown; the next takedown finds the post gone and succeeds", () =>
    Effect.gen(function*() {
      const { calls, stored, takedown } = yield* delivered
      const first = yield* Effect.fork(takedown())
      yield* Queue.take(calls)
      yield* TestClock.adjust(takedownCallLimit)
      expect(yield* Effect.flip(Fiber.join(first))).toMatchObject({ _tag: "TakedownFailed", category: "outcome_unknown" })
      expect(stored()).toMatchObject({ status: "success", takedown: null })
      const second = yield* Effect.fork(takedown())
      yield* Deferred.fail(yield* Queue.take(calls), new AlreadyGone({ detail: "no live post x-1" }))
      expect((yield* Fiber.join(second)).delivery.status).toBe("taken_down")
    }))

  it.effect("an intent left by a request that died holds the delivery for the lease, then the next takedown takes it over", () =>
    Effect.gen(function*() {
      const { calls, id, provide, stored, takedown, world } = yield* delivered
      // What a process killed during the platform call leaves behind: the intent alone.
      yield* provide(Effect.gen(function*() {
        const store = yield* PostStore
        const record = world.data.posts.get(stored().postId)!
        const now = yield* DateTime.now
        const asked = stored().with({ takedown: takedownBy(world.agent, now), updatedAt: now })
        yield* store.commit(PostChange.Update({
          expectedVersion: record.post.version,
          record: { post: record.post.with({ version: record.post.version + 1 }), deliveries: [asked] },
          events: []
        }))
      }))
      expect(stored().takedown).toMatchObject({ by: world.agent.keyId })
      yield* TestClock.adjust(Duration.millis(Duration.toMillis(takedownLease) - 1))
      expect(yield* Effect.flip(takedown())).toMatchObject(refused("delivery_taken_down"))
      yield* TestClock.adjust("1 millis")
      const takeover = yield* Effect.fork(takedown())
      // The dead request's DELETE went through: the platform no longer holds the post.
      yield* Deferred.fail(yield* Queue.take(calls), new AlreadyGone({ detail: `no live post for ${id}` }))
      expect((yield* Fiber.join(takeover)).delivery).toMatchObject({ status: "taken_down", takedown: { by: world.human.keyId } })
      expect(yield* Queue.size(calls)).toBe(0)
    }))

  it.effect("a request interrupted during the call (its client went away) still records the platform's answer", () =>
    Effect.gen(function*() {
      const { calls, stored, takedown } = yield* delivered
      const first = yield* Effect.fork(takedown())
      const call = yield* Queue.take(calls)
      const interrupting = yield* Effect.fork(Fiber.interrupt(first))
      yield* Deferred.succeed(call, undefined)
      yield* Fiber.join(interrupting)
      expect(stored().status).toBe("taken_down")
    }))
})
