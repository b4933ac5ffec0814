import { Duration } from "effect"

/** When a transient failure is tried again, and when an unknown outcome is looked up again. */
export interface RetryPolicy {
  /** Attempts in all, the first included; a transient failure on the last one is permanent. */
  readonly maxAttempts: number
  /** The first retry waits between half of this and this; each later one doubles it. */
  readonly backoffBase: Duration.Duration
  readonly backoffCap: Duration.Duration
  /** The first look-up of an unknown outcome waits this long; later ones wait as long as it has been unknown. */
  readonly recheckMin: Duration.Duration
  readonly recheckMax: Duration.Duration
  /** An outcome still unconfirmed after this long fails, asking a person to check the platform. */
  readonly giveUpUnknownAfter: Duration.Duration
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 6,
  backoffBase: Duration.seconds(15),
  backoffCap: Duration.hours(1),
  recheckMin: Duration.seconds(5),
  recheckMax: Duration.hours(1),
  giveUpUnknownAfter: Duration.hours(24)
}

/**
 * "Equal jitter" exponential backoff: after the attempt-th attempt failed, wait between half and
 * all of base * 2^(attempt-1) (capped), so workers that failed together do not return together,
 * and never less than the platform's Retry-After.
 * random is in [0, 1).
 */
export const retryDelay = (
  policy: Pick<RetryPolicy, "backoffBase" | "backoffCap">,
  attempt: number,
  retryAfterMillis: number | null,
  random: number
): Duration.Duration => {
  const ceiling = Math.min(Duration.toMillis(policy.backoffBase) * 2 ** Math.max(attempt - 1, 0), Duration.toMillis(policy.backoffCap))
  const jittered = ceiling / 2 + (ceiling / 2) * random
  return Duration.millis(Math.ceil(Math.max(jittered, retryAfterMillis ?? 0)))
}

/** The next look-up of an unknown outcome: the longer it has been unknown, the longer the wait. */
export const recheckDelay = (policy: RetryPolicy, unknownFor: Duration.Duration): Duration.Duration =>
  Duration.clamp(unknownFor, { minimum: policy.recheckMin, maximum: policy.recheckMax })
