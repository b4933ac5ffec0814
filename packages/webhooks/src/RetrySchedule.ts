import { DateTime, Duration, Option, Random } from "effect"
import { traced } from "@herald/core"

/** The waits before retries 1..5: about 2.5 hours in all, each spread ±20% so endpoints that failed together do not retry together. */
export const retryDelays: ReadonlyArray<Duration.Duration> = [
  Duration.minutes(1),
  Duration.minutes(5),
  Duration.minutes(15),
  Duration.minutes(40),
  Duration.minutes(90)
]

export const retryJitter = 0.2

/** The first send plus one per retry delay. */
export const maxAttempts = retryDelays.length + 1

/**
 * When to try again after attempt number `attempt` (1 = the first send) failed at `now`, or None
 * to give up. `random` is uniform in [0, 1) and picks the jitter.
 */
export const nextAttemptAt = (attempt: number, now: DateTime.Utc, random: number): Option.Option<DateTime.Utc> =>
  Option.fromNullable(Number.isInteger(attempt) ? retryDelays[attempt - 1] : undefined).pipe(
    Option.map((delay) => {
      const factor = 1 - retryJitter + 2 * retryJitter * Math.min(Math.max(random, 0), 1)
      return DateTime.addDuration(now, Duration.millis(Math.round(Duration.toMillis(delay) * factor)))
    })
  )

/** nextAttemptAt with the time from Clock and the jitter from Random (TestClock drives it in tests). */
export const scheduleRetry = traced("webhooks.scheduleRetry")(function*(attempt: number) {
  const now = yield* DateTime.now
  const random = yield* Random.next
  return nextAttemptAt(attempt, now, random)
})

/** An endpoint stops receiving after this many given-up events in a row, until it is turned back on. */
export const disableAfterGiveUps = 10

/**
 * The run of consecutive given-up events after one more event finished: a delivered event ends
 * the run; `disable` says the endpoint must now be switched off.
 */
export const recordFinalOutcome = (
  consecutiveGiveUps: number,
  outcome: "delivered" | "given_up"
): { readonly consecutiveGiveUps: number; readonly disable: boolean } => {
  const run = outcome === "delivered" ? 0 : consecutiveGiveUps + 1
  return { consecutiveGiveUps: run, disable: run >= disableAfterGiveUps }
}
