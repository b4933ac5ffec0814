import { Context, DateTime, type Duration, Effect, Metric } from "effect"
import { workerHeartbeatsWritten } from "../ServiceMetrics.js"

export interface WorkerBeat {
  readonly worker: string
  readonly kind: string
  readonly lastRanAt: DateTime.Utc
}

/** When each background worker last ran, so an operator (or a health check) can spot a stalled one. */
export class WorkerHeartbeats extends Context.Tag("@herald/core/WorkerHeartbeats")<WorkerHeartbeats, {
  readonly beat: (worker: string, kind: string, at: DateTime.Utc) => Effect.Effect<void>
  readonly list: Effect.Effect<ReadonlyArray<WorkerBeat>>
}>() {
  /**
   * A beat for a worker's loop to run every turn: it writes at most once per interval, and a
   * failed write is logged rather than stopping the worker it reports on.
   */
  static readonly every = (worker: string, kind: string, interval: Duration.DurationInput) =>
    Effect.map(WorkerHeartbeats, (heartbeats) => {
      let last: DateTime.Utc | null = null
      return Effect.gen(function*() {
        const now = yield* DateTime.now
        if (last !== null && DateTime.lessThan(now, DateTime.addDuration(last, interval))) return
        last = now
        yield* heartbeats.beat(worker, kind, now)
        yield* Metric.increment(Metric.tagged(workerHeartbeatsWritten, "kind", kind))
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`heartbeat of ${kind} worker ${worker} failed`, cause)))
    })
}
