import { Context, type Effect, type Option } from "effect"
import type { ProjectId } from "../Ids.js"
import type { PublishingPause } from "../PublishingPause.js"

/**
 * The emergency stops in force. The storage's claim of due deliveries honours them too, so a
 * pause reaches every worker process at its next claim; the dispatcher also asks before each
 * platform call (usecases/DispatchDelivery.ts).
 */
export class PublishingPauses extends Context.Tag("@herald/core/PublishingPauses")<PublishingPauses, {
  /** Holds the pause's scope; a scope already paused keeps its pause as it was (time and reason). */
  readonly pause: (pause: PublishingPause) => Effect.Effect<PublishingPause>
  /** Lifts the scope's pause (null: the instance's); none when it was not paused. */
  readonly resume: (projectId: ProjectId | null) => Effect.Effect<Option.Option<PublishingPause>>
  /** The pauses holding this project's publishing: the instance's and its own. */
  readonly holding: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<PublishingPause>>
  /** Every pause in force. */
  readonly list: Effect.Effect<ReadonlyArray<PublishingPause>>
}>() {}
