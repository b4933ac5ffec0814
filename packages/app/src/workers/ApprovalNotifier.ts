import { notifyApprovers, WorkerHeartbeats } from "@herald/core"
import { Cause, DateTime, Duration, Effect, Layer } from "effect"
import { workerName } from "./PublishingDispatcher.js"

export interface ApprovalNotifierOptions {
  /** This worker's name in leases and heartbeats; unique per process. */
  readonly worker: string
  /** Messages sent at once: the claim size. */
  readonly concurrency: number
  /** How long a claim holds; a send (10 s to chat, 30 s of SMTP silence) ends well inside it. */
  readonly leaseMillis: number
  /** Between two passes when the last one found less than a full batch. */
  readonly pollInterval: Duration.Duration
  /** At most one heartbeat per interval (GET /health, docs/operations.md). */
  readonly heartbeatInterval: Duration.Duration
}

export const defaultApprovalNotifierOptions = (): ApprovalNotifierOptions => ({
  worker: workerName(),
  concurrency: 8,
  leaseMillis: 120_000,
  pollInterval: Duration.seconds(5),
  heartbeatInterval: Duration.seconds(5)
})

export const approvalNotifierHeartbeatKind = "approval-notifier"

/**
 * Announces held posts on their project's approval channels (docs/approval-channels.md): each pass
 * queues the messages owed and sends those due. A crashed pass leaves its leases to lapse, and the
 * held posts themselves say what is still owed, so nothing is lost.
 */
export const runApprovalNotifier = (options: ApprovalNotifierOptions) =>
  Effect.gen(function*() {
    const beat = yield* WorkerHeartbeats.every(options.worker, approvalNotifierHeartbeatKind, options.heartbeatInterval)
    return yield* Effect.forever(Effect.gen(function*() {
      yield* beat
      const handled = yield* notifyApprovers({
        now: yield* DateTime.now,
        limit: options.concurrency,
        leaseMillis: options.leaseMillis,
        worker: options.worker
      }, options.concurrency).pipe(
        Effect.catchAllCause((cause) => Effect.as(Effect.logError("approval notifier pass failed; the next pass tries again", Cause.pretty(cause)), 0))
      )
      if (handled < options.concurrency) yield* Effect.sleep(options.pollInterval)
    }))
  })

/**
 * The notifier for the life of the layer, beside `workers` (as WebhookDispatcher.layer is). Needs
 * ApprovalChannels, ApprovalMessengers, ApprovalLinks, WorkerHeartbeats and what a message reads:
 * PostStore, AccountStore, ProjectStore, MediaLibrary, MediaStorage.
 */
export const approvalNotifier = (options: Partial<ApprovalNotifierOptions> = {}) =>
  Layer.scopedDiscard(Effect.forkScoped(runApprovalNotifier({ ...defaultApprovalNotifierOptions(), ...options })))
