import {
  type ClaimedSync,
  inSpan,
  MetricsStore,
  type MetricsSyncPolicy,
  type PlatformPauses,
  syncDelivery,
  WorkerHeartbeats
} from "@herald/core"
import { Cause, DateTime, Duration, Effect } from "effect"
import { workerName } from "./PublishingDispatcher.js"

export interface MetricsSyncOptions extends MetricsSyncPolicy {
  /** This worker's name in leases and heartbeats; unique per process. */
  readonly worker: string
  /** Deliveries whose metrics are fetched at once: the claim size. */
  readonly concurrency: number
  /**
   * How long a claim holds. A claim's fetches run together and each is bounded by fetchTimeout,
   * so the lease is set well above it and never needs renewing.
   */
  readonly leaseMillis: number
  /** How often the store is asked for due work when the last claim found none (or less than a full batch). */
  readonly pollInterval: Duration.Duration
  readonly heartbeatInterval: Duration.Duration
}

/** The contract's "roughly every 6 hours", from 15 minutes after publishing, for 30 days (docs/analytics.md). */
export const defaultMetricsSchedule = {
  firstAfter: Duration.minutes(15),
  every: Duration.hours(6),
  lastAfter: Duration.days(30)
}

export const defaultMetricsSyncOptions = (): MetricsSyncOptions => ({
  schedule: defaultMetricsSchedule,
  fetchTimeout: Duration.seconds(30),
  retryDelay: Duration.minutes(15),
  worker: workerName(),
  concurrency: 16,
  leaseMillis: 120_000,
  pollInterval: Duration.seconds(30),
  heartbeatInterval: Duration.seconds(5)
})

export const metricsHeartbeatKind = "metrics"

/**
 * One claimed delivery synced. A defect (the database went away) keeps the lease: it lapses and
 * the delivery is claimed again, so a crash loses nothing.
 */
const syncClaim = (claim: ClaimedSync, options: MetricsSyncOptions, pauses: PlatformPauses) =>
  syncDelivery(claim, options.worker, options, pauses).pipe(
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logError(`metrics of delivery ${claim.deliveryId} not synced; its lease will lapse and it will be tried again`, Cause.pretty(cause)),
        "stopped" as const
      )
    )
  )

/** One pass: claim what is due now (up to concurrency) and sync it all. For tests and tools. */
export const syncMetricsOnce = (options: MetricsSyncOptions, pauses: PlatformPauses = new Map()) =>
  Effect.gen(function*() {
    const store = yield* MetricsStore
    const claims = yield* store.claimDue({
      now: yield* DateTime.now,
      limit: options.concurrency,
      leaseMillis: options.leaseMillis,
      worker: options.worker,
      schedule: options.schedule
    })
    return yield* Effect.forEach(claims, (claim) => syncClaim(claim, options, pauses), { concurrency: options.concurrency })
  })

/**
 * Fetches the metrics of deliveries as they fall due, until its scope closes. Claims under
 * expiring leases, so any number of processes can run it. A platform that answers with its rate
 * limit is paused (for this worker at once, for the others through the store) while the worker
 * goes on with the other platforms.
 */
export const runMetricsSync = (options: MetricsSyncOptions) =>
  Effect.gen(function*() {
    if (options.leaseMillis <= Duration.toMillis(options.fetchTimeout)) {
      return yield* Effect.dieMessage("the metrics sync's lease must outlast its fetch timeout")
    }
    const pauses: PlatformPauses = new Map()
    const beat = yield* WorkerHeartbeats.every(options.worker, metricsHeartbeatKind, options.heartbeatInterval)
    yield* Effect.logInfo(`metrics sync ${options.worker} started`)
    return yield* Effect.forever(Effect.gen(function*() {
      yield* beat
      const synced = yield* syncMetricsOnce(options, pauses)
      // A full batch means more may be due: claim again at once.
      if (synced.length < options.concurrency) yield* Effect.sleep(options.pollInterval)
    }))
  }).pipe(inSpan("MetricsSync"))
