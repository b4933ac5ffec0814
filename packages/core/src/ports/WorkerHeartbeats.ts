import { Context, type DateTime, type Effect } from "effect"

export interface WorkerBeat {
  readonly worker: string
  readonly kind: string
  readonly lastRanAt: DateTime.Utc
}

/** When each background worker last ran, so an operator (or a health check) can spot a stalled one. */
export class WorkerHeartbeats extends Context.Tag("@herald/core/WorkerHeartbeats")<WorkerHeartbeats, {
  readonly beat: (worker: string, kind: string, at: DateTime.Utc) => Effect.Effect<void>
  readonly list: Effect.Effect<ReadonlyArray<WorkerBeat>>
}>() {}
