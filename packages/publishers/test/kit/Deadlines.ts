/**
 * The call deadlines (CallDeadlines) the publishers' tests build routes under, one definition each.
 */
import { Duration } from "effect"
import type { Deadlines } from "../../src/kit/index.js"

const every = (deadline: Duration.Duration): Deadlines => ({ read: deadline, publish: deadline, upload: deadline })

/** Short enough that a reply that never comes fails within a test; long enough for any answered call on a loaded machine. */
export const shortDeadlines = every(Duration.seconds(2))

/**
 * For a publish whose one call is the one the fake never answers: no answered call runs under
 * them, so they can be shorter than any answered call could count on.
 */
export const hungCallDeadlines = every(Duration.millis(300))

/**
 * For a publish whose answered calls come before the one the fake never answers: long enough for
 * those on a loaded machine, shorter than `shortDeadlines` for the one that hangs.
 */
export const hungAfterAnsweredDeadlines = every(Duration.seconds(1))

/** Long enough that a test driving the TestClock (Driven.ts) never times out a call on loopback. */
export const patientDeadlines = every(Duration.minutes(5))
