import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Either, Fiber, TestClock } from "effect"
import { platformCalls } from "../src/PlatformCalls.js"

describe("platform calls under one time limit", () => {
  it.scoped("an answer in time is passed on; a call still waiting at its deadline is unknown and interrupted", () =>
    Effect.gen(function*() {
      const calls = yield* platformCalls(Duration.seconds(10))
      const interrupted = yield* Deferred.make<void>()
      const hanging = yield* Effect.fork(calls.call(Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))), "x did not answer"))
      yield* TestClock.adjust("4 seconds")
      // Started later, so due later: answered in time, and the wait for the first does not hold it up.
      const slow = yield* Effect.fork(calls.call(Effect.as(Effect.sleep("3 seconds"), "posted"), "x did not answer"))
      const failing = yield* calls.call(Effect.fail("refused"), "x did not answer")
      expect(failing).toEqual(Either.left("refused"))
      yield* TestClock.adjust("3 seconds")
      expect(yield* Fiber.join(slow)).toEqual(Either.right("posted"))
      yield* TestClock.adjust("2999 millis")
      expect(hanging.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const timedOut = yield* Fiber.join(hanging)
      expect(Either.isLeft(timedOut) && timedOut.left).toMatchObject({ _tag: "OutcomeUnknown", detail: "x did not answer within 10s" })
      yield* Deferred.await(interrupted)
    }))

  it.scoped("a later call still times out at its own deadline after an earlier one answered", () =>
    Effect.gen(function*() {
      const calls = yield* platformCalls(Duration.seconds(10))
      expect(yield* calls.call(Effect.succeed(1), "x did not answer")).toEqual(Either.right(1))
      yield* TestClock.adjust("5 seconds")
      const hanging = yield* Effect.fork(calls.call(Effect.never, "x did not answer"))
      yield* TestClock.adjust("9 seconds")
      expect(hanging.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 seconds")
      expect(Either.isLeft(yield* Fiber.join(hanging))).toBe(true)
    }))
})
