import { Context, type Effect } from "effect"
import type { SocialAccount } from "../Account.js"
import type { ProjectId } from "../Ids.js"

export class AccountStore extends Context.Tag("@herald/core/AccountStore")<AccountStore, {
  /** Every account connected to the project, whatever its status. */
  readonly list: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<SocialAccount>>
}>() {}
