import { Publishers } from "@herald/core"
import { Effect, Layer } from "effect"

/*
 * Gaps in the composition, each failing loudly until the piece it stands for lands. Delete a gap
 * (and its use in Engine.ts) when its layer exists.
 */

const publishersMissing = "simulator publishers are not wired in yet: @herald/publishers exports no Publishers layer"

/** Every publish, reconcile and takedown dies with a message naming the missing piece. */
export const PublishersNotWired = Layer.succeed(
  Publishers,
  Publishers.of({
    forAccount: () => ({
      capabilities: { publish: true, delete: false, reconcile: false, metrics: false, probe: false, peopleTagCheck: false },
      publish: () => Effect.dieMessage(publishersMissing),
      reconcile: () => Effect.dieMessage(publishersMissing),
      takedown: () => Effect.dieMessage(publishersMissing)
    })
  })
)

/** Says on every start, at error level, that nothing will be published. */
export const WorkersNotWired = Layer.effectDiscard(
  Effect.logError(
    "background workers are not wired in yet (packages/app/src/workers): approved and autopilot posts stay queued, " +
      "webhooks are not sent; GET /health reports every worker missing"
  )
)
