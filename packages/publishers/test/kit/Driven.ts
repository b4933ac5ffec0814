/**
 * Running a publish whose waits (processing polls, container waits) sleep on the TestClock while
 * its calls go to a fake on loopback in real time.
 */
import { Chunk, Effect, Fiber, Option, TestClock } from "effect"

const realPause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))

/**
 * Moves the TestClock until `done` or the fiber ends: to the next wake-up whenever one is pending
 * (the fiber sleeps), else a real moment passes (a loopback call is answered).
 */
export const driveUntil = <A, E>(fiber: Fiber.Fiber<A, E>, done: () => boolean) =>
  Effect.gen(function*() {
    while (!done() && Option.isNone(yield* Fiber.poll(fiber))) {
      const wakeUps = yield* TestClock.sleeps()
      yield* Chunk.isEmpty(wakeUps) ? realPause : TestClock.setTime(Math.min(...wakeUps))
    }
  })

/** Runs `effect` to its end, moving the TestClock as `driveUntil` does; answers its exit. */
export const driven = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    yield* driveUntil(fiber, () => false)
    return yield* Fiber.await(fiber)
  })
