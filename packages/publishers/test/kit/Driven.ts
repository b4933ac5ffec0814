/**
 * Running a publish whose waits (processing polls, container waits) sleep on the TestClock while
 * its calls go to a fake on loopback in real time.
 */
import { Chunk, Effect, Fiber, Option, TestClock } from "effect"

const realPause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))

/**
 * Moves the TestClock until `done` or the fiber ends: to the next wake-up whenever one is pending,
 * else a real moment passes (a loopback call is answered). Only the fiber may sleep on the clock:
 * a timeout around it would be moved to as soon as it is pending.
 */
export const driveUntil = <A, E>(fiber: Fiber.Fiber<A, E>, done: () => boolean) =>
  Effect.gen(function*() {
    while (!done() && Option.isNone(yield* Fiber.poll(fiber))) {
      const wakeUps = yield* TestClock.sleeps()
      yield* Chunk.isEmpty(wakeUps) ? realPause : TestClock.setTime(Math.min(...wakeUps))
    }
  })

/**
 * Runs `effect`, moving the TestClock as `driveUntil` does, to its end or until `cut` holds (where
 * it is interrupted, as a crash or a deadline would stop it); answers its exit.
 */
export const driven = <A, E>(effect: Effect.Effect<A, E>, cut: () => boolean = () => false) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    yield* driveUntil(fiber, cut)
    return yield* Fiber.interrupt(fiber)
  })
