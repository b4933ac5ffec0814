import { checkDueAccounts, type ConnectionCheckPolicy, defaultConnectionCheckPolicy, inSpan, WorkerHeartbeats } from "@herald/core"
import { Duration, Effect } from "effect"
import { workerName } from "./PublishingDispatcher.js"

export interface ConnectionCheckerOptions extends ConnectionCheckPolicy {
  /** This worker's name in leases and heartbeats; unique per process. */
  readonly worker: string
  /** How often the schedule is looked at for due accounts. */
  readonly pollInterval: Duration.Duration
  /** Accounts claimed per turn. */
  readonly batch: number
  /** Probes in flight at once. */
  readonly concurrency: number
  readonly heartbeatInterval: Duration.Duration
}

export const defaultConnectionCheckerOptions = (): ConnectionCheckerOptions => ({
  ...defaultConnectionCheckPolicy,
  worker: `${workerName()}:checks`,
  pollInterval: Duration.seconds(30),
  batch: 32,
  concurrency: 8,
  heartbeatInterval: Duration.seconds(30)
})

export const checkerHeartbeatKind = "connection-checker"

/**
 * Probes accounts as their throttle falls due (every `every`, every `expiringEvery` once a token
 * is inside the warning window) until its scope closes. Claims under leases, so any number of
 * processes can run it and no account is probed by two at once; a full batch is followed at once
 * by the next, an incomplete one by a wait of pollInterval.
 */
export const runConnectionChecker = (options: ConnectionCheckerOptions) =>
  Effect.gen(function*() {
    const beat = yield* WorkerHeartbeats.every(options.worker, checkerHeartbeatKind, options.heartbeatInterval)
    yield* Effect.logInfo(`connection checker ${options.worker} started`)
    return yield* Effect.forever(Effect.gen(function*() {
      yield* beat
      const claimed = yield* checkDueAccounts(options, options.worker, options.batch, options.concurrency)
      if (claimed < options.batch) yield* Effect.sleep(options.pollInterval)
    }))
  }).pipe(inSpan("ConnectionChecker"))
