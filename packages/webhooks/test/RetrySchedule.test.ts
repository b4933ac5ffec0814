import { describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, FastCheck, Option, TestClock } from "effect"
import { maxAttempts, nextAttemptAt, recordFinalOutcome, retryDelays, scheduleRetry } from "../src/index.js"

const now = DateTime.unsafeMake("2026-03-01T12:00:00.000Z")
const minutesAfterNow = (at: Option.Option<DateTime.Utc>) =>
  Option.map(at, (instant) => DateTime.distance(now, instant) / 60_000)

describe("nextAttemptAt", () => {
  it("waits 1, 5, 15, 40 and 90 minutes without jitter, then gives up", () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => minutesAfterNow(nextAttemptAt(attempt, now, 0.5)))).toEqual([
      Option.some(1),
      Option.some(5),
      Option.some(15),
      Option.some(40),
      Option.some(90),
      Option.none()
    ])
    expect(maxAttempts).toBe(6)
  })

  it("spreads about 2.5 hours over the five retries", () => {
    const total = retryDelays.reduce((sum, delay) => sum + Duration.toMinutes(delay), 0)
    expect(total).toBe(151)
  })

  it("keeps every delay within ±20% of its nominal value", () => {
    FastCheck.assert(FastCheck.property(
      FastCheck.integer({ min: 1, max: 5 }),
      FastCheck.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (attempt, random) => {
        const nominal = Duration.toMillis(retryDelays[attempt - 1]!)
        const wait = DateTime.distance(now, Option.getOrThrow(nextAttemptAt(attempt, now, random)))
        return wait >= Math.round(nominal * 0.8) && wait <= Math.round(nominal * 1.2)
      }
    ))
    expect(minutesAfterNow(nextAttemptAt(5, now, 0))).toEqual(Option.some(72))
  })

  it("gives up on attempt numbers outside 1..5", () => {
    for (const attempt of [0, -1, 1.5, 7, Number.NaN]) {
      expect(nextAttemptAt(attempt, now, 0.5)).toEqual(Option.none())
    }
  })

  it.effect("scheduleRetry reads the time from Clock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(DateTime.toEpochMillis(now))
      const at = yield* scheduleRetry(2)
      const minutes = Option.getOrThrow(minutesAfterNow(at))
      expect(minutes).toBeGreaterThanOrEqual(4)
      expect(minutes).toBeLessThanOrEqual(6)
      expect(yield* scheduleRetry(6)).toEqual(Option.none())
    }))
})

describe("recordFinalOutcome", () => {
  it("disables the endpoint at the tenth given-up event in a row", () => {
    let run = 0
    const disabled: Array<boolean> = []
    for (let event = 0; event < 10; event++) {
      const next = recordFinalOutcome(run, "given_up")
      run = next.consecutiveGiveUps
      disabled.push(next.disable)
    }
    expect(disabled).toEqual([false, false, false, false, false, false, false, false, false, true])
  })

  it("starts the count again after a delivered event", () => {
    expect(recordFinalOutcome(9, "delivered")).toEqual({ consecutiveGiveUps: 0, disable: false })
    expect(recordFinalOutcome(0, "given_up")).toEqual({ consecutiveGiveUps: 1, disable: false })
  })
})
