import { type ClaimedDelivery, DeliveryQueue, WorkerHeartbeats } from "@herald/core"
import { Cause, DateTime, Duration, Effect, FiberSet, Queue, Schedule, Stream } from "effect"
import { randomBytes } from "node:crypto"
import * as Os from "node:os"
import { defaultRetryPolicy } from "./Backoff.js"
import { type DispatchContext, type Dispatched, dispatchDelivery, type DispatchPolicy, dispatchStore, projectViews } from "./Dispatch.js"

export interface DispatcherOptions extends DispatchPolicy {
  /** This worker's name in leases and heartbeats; unique per process. */
  readonly worker: string
  /** Deliveries in flight at once in this process. */
  readonly concurrency: number
  /** How long a claim holds; renewed every third of it while the delivery is being handled. */
  readonly leaseMillis: number
  /** How often the queue is polled when no wake-up comes. */
  readonly pollInterval: Duration.Duration
  /** Heartbeats are written at most this often. */
  readonly heartbeatInterval: Duration.Duration
}

export const workerName = (): string => `${Os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`

export const defaultDispatcherOptions = (): DispatcherOptions => ({
  ...defaultRetryPolicy,
  publishTimeout: Duration.seconds(30),
  worker: workerName(),
  concurrency: 32,
  leaseMillis: 60_000,
  pollInterval: Duration.seconds(1),
  heartbeatInterval: Duration.seconds(5)
})

export const heartbeatKind = "dispatcher"

const renewLease = (claim: ClaimedDelivery, { leaseMillis, worker }: DispatcherOptions) =>
  Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    const held = yield* queue.renew(claim.deliveryId, { now: yield* DateTime.now, leaseMillis, worker })
    if (!held) yield* Effect.logWarning(`lost the lease on delivery ${claim.deliveryId}`)
  }).pipe(
    Effect.repeat(Schedule.spaced(Duration.millis(leaseMillis / 3))),
    Effect.delay(Duration.millis(leaseMillis / 3)),
    Effect.interruptible
  )

/**
 * Outcomes after which the delivery still needs its lease released. A settled one (published,
 * reconciled, failed) was released by the commit that settled it.
 */
const releaseAfter: ReadonlySet<Dispatched> = new Set(["retrying", "unknown", "skipped"])

/**
 * Handles one claimed delivery under its lease (renewed meanwhile) and releases the lease once
 * the delivery is settled, queued for later or unknown with a recheck time. A defect (the
 * database went away mid-step) keeps the lease: once it lapses, the next claimer finds the
 * delivery as it was left and reconciles if it was mid-call.
 */
export const processClaim = (claim: ClaimedDelivery, options: DispatcherOptions, context: DispatchContext) =>
  Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    yield* Effect.forkScoped(renewLease(claim, options))
    const outcome = yield* dispatchDelivery(claim, context)
    if (releaseAfter.has(outcome)) yield* queue.release(claim.deliveryId, options.worker)
    return outcome
  }).pipe(
    Effect.scoped,
    Effect.tapErrorCause((cause) =>
      Effect.logError(`delivery ${claim.deliveryId} stopped; its lease will lapse and it will be picked up again`, Cause.pretty(cause))
    ),
    Effect.catchAllCause(() => Effect.succeed("stopped" as const))
  )

/** One pass: claim what is due now (up to concurrency) and handle it all. For tests and tools. */
export const dispatchDueOnce = (options: DispatcherOptions) =>
  Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    const store = yield* dispatchStore
    const claims = yield* queue.claimDue({
      now: yield* DateTime.now,
      limit: options.concurrency,
      leaseMillis: options.leaseMillis,
      worker: options.worker
    })
    const context = { policy: options, store, views: yield* projectViews }
    return yield* Effect.forEach(claims, (claim) => processClaim(claim, options, context), { concurrency: options.concurrency })
  }).pipe(Effect.scoped)

/**
 * Publishes due deliveries until its scope closes. Claims under expiring leases, so any number of
 * processes can run it; wakes early on DeliveryQueue.wakeups; heartbeats every loop.
 *
 * On scope close (SIGTERM) it stops claiming, lets every delivery in flight finish (a platform
 * call is bounded by publishTimeout) and releases its leases. A process killed outright leaves
 * its leases to lapse: the next claimer reconciles what was mid-call.
 */
export const runDispatcher = (options: DispatcherOptions) =>
  Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    const { concurrency, leaseMillis, worker } = options

    // Made before the fiber set, so it closes after it: deliveries finishing at shutdown still write.
    const store = yield* dispatchStore
    const wake = yield* Queue.sliding<void>(1)
    const inFlight = yield* FiberSet.make<void>()
    yield* queue.wakeups.pipe(Stream.runForEach(() => Queue.offer(wake, undefined)), Effect.forkScoped)

    // Counted here rather than read from the FiberSet: a fiber leaves the set only after its
    // last step, and the wake-up it sends must already see its slot free.
    let busy = 0
    const minBatch = Math.max(1, Math.floor(concurrency / 4))
    const handle = (claim: ClaimedDelivery, context: DispatchContext) =>
      processClaim(claim, options, context).pipe(
        Effect.ensuring(Effect.suspend(() => {
          busy--
          return Queue.offer(wake, undefined)
        }))
      )

    // Claiming and starting is one uninterruptible step, so no claim is lost between the two.
    const claimBatch = Effect.uninterruptible(Effect.gen(function*() {
      const free = concurrency - busy
      // Claim in batches: one claim query per freed slot would cost more than the work it finds.
      if (free <= 0 || (busy > 0 && free < minBatch)) return { claimed: 0, full: true }
      const claims = yield* queue.claimDue({ now: yield* DateTime.now, limit: free, leaseMillis, worker })
      busy += claims.length
      const context = { policy: options, store, views: yield* projectViews }
      for (const claim of claims) yield* FiberSet.run(inFlight, handle(claim, context))
      return { claimed: claims.length, full: claims.length === free }
    }))

    const beat = yield* WorkerHeartbeats.every(worker, heartbeatKind, options.heartbeatInterval)

    yield* Effect.logInfo(`dispatcher ${worker} started`)
    yield* Effect.addFinalizer(() => Effect.logInfo(`dispatcher ${worker} stopping; finishing deliveries in flight`))
    return yield* Effect.forever(Effect.gen(function*() {
      yield* beat
      const { claimed, full } = yield* claimBatch
      // A full batch means more may be due: claim again at once. Otherwise wait for a wake-up
      // (new work, or a slot freed) or the poll interval.
      if (claimed > 0 && full) return
      yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(options.pollInterval))
    }))
  }).pipe(Effect.withSpan("Dispatcher"))
