import { Context, type Effect } from "effect"

/** Fresh UUIDs for new rows. */
export class IdGenerator extends Context.Tag("@herald/core/IdGenerator")<IdGenerator, {
  readonly uuid: Effect.Effect<string>
}>() {}
