import {
  type ClaimedDelivery,
  defaultRetryPolicy,
  type DeliveryId,
  DeliveryQueue,
  type DispatchContext,
  type Dispatched,
  dispatchDelivery,
  type DispatchPolicy,
  dispatchStore,
  inSpan,
  platformCalls,
  projectViews,
  WorkerHeartbeats
} from "@herald/core"
import { Cause, DateTime, Duration, Effect, FiberHandle, FiberSet, Option, Queue, Stream } from "effect"
import { randomBytes } from "node:crypto"
import * as Os from "node:os"

export interface PublishingDispatcherOptions extends DispatchPolicy {
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
  /**
   * How long an outcome waits for others to share its commit. The calls of a claim batch start
   * together but answer a few milliseconds apart, and each commit has a fixed cost to the database
   * whatever it carries, so a short wait (far below the lateness target) saves most of the commits
   * (bench/README.md, Dispatch). Intents need none: a claim batch's are ready together. Waited
   * for on Effect's Clock: under a TestClock, set it to zero or advance the clock.
   */
  readonly outcomeLinger: Duration.Duration
}

export const workerName = (): string => `${Os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`

export const defaultPublishingDispatcherOptions = (): PublishingDispatcherOptions => ({
  ...defaultRetryPolicy,
  // Long enough for a video: uploads (each call up to 5 minutes) and the platform's processing.
  publishTimeout: Duration.minutes(15),
  worker: workerName(),
  concurrency: 32,
  leaseMillis: 60_000,
  pollInterval: Duration.seconds(1),
  heartbeatInterval: Duration.seconds(5),
  outcomeLinger: Duration.millis(10)
})

export const heartbeatKind = "dispatcher"

/**
 * Keeps the leases of one claim batch: renewed every third of the lease, by one fiber, while any
 * of its deliveries is still held (taken out of `held` once handled). A fiber per delivery cost
 * more than all the renewals it ever made. Ends at the first tick that finds nothing held.
 */
const keepLeases = (held: Set<DeliveryId>, { leaseMillis, worker }: PublishingDispatcherOptions) =>
  Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    const renewAll = Effect.gen(function*() {
      const now = yield* DateTime.now
      yield* Effect.forEach([...held], (id) =>
        Effect.flatMap(queue.renew(id, { now, leaseMillis, worker }), (kept) =>
          kept ? Effect.void : Effect.logWarning(`lost the lease on delivery ${id}`)), { discard: true })
    })
    const tick: Effect.Effect<void> = Effect.zipRight(
      Effect.sleep(Duration.millis(leaseMillis / 3)),
      Effect.suspend(() => held.size === 0 ? Effect.void : Effect.zipRight(renewAll, tick))
    )
    return yield* Effect.interruptible(tick)
  })

/**
 * Outcomes after which the delivery still needs its lease released. A settled one (published,
 * reconciled, failed) was released by the commit that settled it.
 */
const releaseAfter: ReadonlySet<Dispatched> = new Set(["retrying", "unknown", "paused", "skipped"])

/**
 * Handles one claimed delivery under its lease (renewed meanwhile by its batch's keepLeases) and
 * releases the lease once the delivery is queued for later or unknown with a recheck time (a
 * settled one was released by its outcome's commit). A defect (the
 * database went away mid-step) keeps the lease: once it lapses, the next claimer finds the
 * delivery as it was left and reconciles if it was mid-call.
 */
export const processClaim = Effect.fnUntraced(
  function*(claim: ClaimedDelivery, options: PublishingDispatcherOptions, context: DispatchContext, held: Set<DeliveryId>) {
    yield* Effect.logInfo("delivery claimed").pipe(Effect.annotateLogs({
      event: "delivery.claimed",
      delivery_id: claim.deliveryId,
      post_id: claim.postId,
      project_id: claim.projectId,
      worker: options.worker
    }))
    const outcome = yield* dispatchDelivery(claim, context)
    held.delete(claim.deliveryId)
    if (releaseAfter.has(outcome)) yield* Effect.flatMap(DeliveryQueue, (queue) => queue.release(claim.deliveryId, options.worker))
    return outcome
  },
  (effect, claim, _options, _context, held) =>
    effect.pipe(
      Effect.tapErrorCause((cause) =>
        Effect.logError(`delivery ${claim.deliveryId} stopped; its lease will lapse and it will be picked up again`, Cause.pretty(cause))
      ),
      Effect.catchAllCause(() => Effect.sync(() => held.delete(claim.deliveryId)).pipe(Effect.as("stopped" as const)))
    )
)

/** One pass: claim what is due now (up to concurrency) and handle it all. For tests and tools. */
export const dispatchDueOnce = (options: PublishingDispatcherOptions) =>
  Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    const store = yield* dispatchStore(options.outcomeLinger)
    const calls = yield* platformCalls(options.publishTimeout)
    const claims = yield* queue.claimDue({
      now: yield* DateTime.now,
      limit: options.concurrency,
      leaseMillis: options.leaseMillis,
      worker: options.worker
    })
    const context = { policy: options, store, calls, views: yield* projectViews }
    const held = new Set(claims.map((claim) => claim.deliveryId))
    yield* Effect.forkScoped(keepLeases(held, options))
    return yield* Effect.forEach(claims, (claim) => processClaim(claim, options, context, held), { concurrency: options.concurrency })
  }).pipe(Effect.scoped)

/**
 * Publishes due deliveries until its scope closes. Claims under expiring leases, so any number of
 * processes can run it; wakes early on DeliveryQueue.wakeups; heartbeats every loop.
 *
 * On scope close (SIGTERM) it stops claiming, lets every delivery in flight finish (a platform
 * call is bounded by publishTimeout) and releases its leases. A process killed outright leaves
 * its leases to lapse: the next claimer reconciles what was mid-call.
 */
export const runPublishingDispatcher = (options: PublishingDispatcherOptions) =>
  Effect.gen(function*() {
    const queue = yield* DeliveryQueue
    const { concurrency, leaseMillis, worker } = options

    // Made before the fiber set, so they close after it: deliveries finishing at shutdown still
    // write, and their calls keep their time limit.
    const store = yield* dispatchStore(options.outcomeLinger)
    const calls = yield* platformCalls(options.publishTimeout)
    const wake = yield* Queue.sliding<void>(1)
    // Whether the next idle wait should ask when the next delivery falls due (see wakeAtNextDue).
    let lookAhead = true
    const lookAheadThenWake = Effect.zipRight(Effect.sync(() => void (lookAhead = true)), Queue.offer(wake, undefined))
    const inFlight = yield* FiberSet.make<void>()
    yield* queue.wakeups.pipe(Stream.runForEach(() => Queue.offer(wake, undefined)), Effect.forkScoped)
    // The poll is a wake-up on a timer: waiting for either one is then a plain take (racing a
    // take against a sleep forked two fibers at every wait, and the loop waits once per delivery).
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(options.pollInterval), lookAheadThenWake)))

    // Counted here rather than read from the FiberSet: a fiber leaves the set only after its
    // last step, and the wake-up it sends must already see its slot free.
    let busy = 0
    // While work is in flight, claim only once half the slots are free: a claim, its read and its
    // intents are a statement each, and a statement's cost to the database hardly depends on how
    // many deliveries it carries (bench/README.md, Dispatch, compares a quarter and a half).
    const minBatch = Math.max(1, Math.floor(concurrency / 2))
    const handle = (claim: ClaimedDelivery, context: DispatchContext, held: Set<DeliveryId>) =>
      processClaim(claim, options, context, held).pipe(
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
      if (claims.length === 0) return { claimed: 0, full: false }
      const context = { policy: options, store, calls, views: yield* projectViews }
      const held = new Set(claims.map((claim) => claim.deliveryId))
      yield* FiberSet.run(inFlight, keepLeases(held, options))
      for (const claim of claims) yield* FiberSet.run(inFlight, handle(claim, context, held))
      return { claimed: claims.length, full: claims.length === free }
    }))

    // Nothing due and nothing in flight: wake when the next delivery falls due rather than at the
    // next poll, so a scheduled post is not up to a poll interval late. Asked once per poll tick
    // and once per timer that fired, not at every idle wait: a dispatcher keeping up with new posts
    // goes idle after each one, and asking there doubled its statements (a post due sooner than a
    // poll interval after it was written goes out at the next poll at worst). A busy dispatcher
    // needs no timer: each delivery it finishes wakes it. A later timer replaces an earlier one;
    // one further off than the poll is left to the poll, which looks again.
    const dueTimer = yield* FiberHandle.make<void>()
    const wakeAtNextDue = Effect.gen(function*() {
      const now = yield* DateTime.now
      const next = yield* queue.nextDue(now)
      if (Option.isNone(next)) return
      const wait = Duration.millis(DateTime.distance(now, next.value))
      if (Duration.greaterThanOrEqualTo(wait, options.pollInterval)) return
      yield* FiberHandle.run(dueTimer, Effect.zipRight(Effect.sleep(wait), lookAheadThenWake))
    })

    const beat = yield* WorkerHeartbeats.every(worker, heartbeatKind, options.heartbeatInterval)

    yield* Effect.logInfo(`dispatcher ${worker} started`)
    yield* Effect.addFinalizer(() => Effect.logInfo(`dispatcher ${worker} stopping; finishing deliveries in flight`))
    return yield* Effect.forever(Effect.gen(function*() {
      yield* beat
      const { claimed, full } = yield* claimBatch
      // A full batch means more may be due: claim again at once. Otherwise wait for a wake-up
      // (new work, a slot freed, or the poll interval's tick).
      if (claimed > 0 && full) return
      if (claimed === 0 && !full && busy === 0 && lookAhead) {
        lookAhead = false
        yield* wakeAtNextDue
      }
      yield* Queue.take(wake)
    }))
  }).pipe(inSpan("PublishingDispatcher"))
