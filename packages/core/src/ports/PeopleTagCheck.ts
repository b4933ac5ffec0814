import { Context, Effect, Layer, Option } from "effect"
import type { SocialAccount } from "../Account.js"
import { Publishers } from "./Publishers.js"

/**
 * Confirms instagram handles through an account's publisher before a photo is tagged with them.
 * None when that account's publisher cannot look handles up.
 */
export class PeopleTagCheck extends Context.Tag("@herald/core/PeopleTagCheck")<PeopleTagCheck, {
  /** The handles among `handles` the platform cannot confirm (empty: all confirmed). */
  readonly unknownHandles: (
    account: SocialAccount,
    handles: ReadonlyArray<string>
  ) => Option.Option<Effect.Effect<ReadonlyArray<string>>>
}>() {
  /** No publisher looks handles up: people_tags are refused as not configured. */
  static readonly notConfigured: Layer.Layer<PeopleTagCheck> = Layer.succeed(PeopleTagCheck, PeopleTagCheck.of({
    unknownHandles: () => Option.none()
  }))

  /**
   * Each account's own publisher looks the handles up. A lookup that fails leaves every handle
   * unconfirmed: the caller is told which ones to drop, never that they were checked.
   */
  static readonly throughPublishers: Layer.Layer<PeopleTagCheck, never, Publishers> = Layer.effect(
    PeopleTagCheck,
    Effect.map(Publishers, (publishers) =>
      PeopleTagCheck.of({
        unknownHandles: (account, handles) =>
          Option.map(
            Option.fromNullable(publishers.forAccount(account).unknownHandles),
            (lookup) =>
              lookup(account, handles).pipe(
                Effect.tapError((failure) => Effect.logWarning("people tag lookup failed", failure)),
                Effect.orElseSucceed(() => handles)
              )
          )
      }))
  )

  /** A fixed directory of existing handles (tests, demos). */
  static readonly fromDirectory = (known: ReadonlyArray<string>): Layer.Layer<PeopleTagCheck> => {
    const directory = new Set(known.map((handle) => handle.toLowerCase()))
    return Layer.succeed(PeopleTagCheck, PeopleTagCheck.of({
      unknownHandles: (_account, handles) =>
        Option.some(Effect.succeed(handles.filter((handle) => !directory.has(handle.toLowerCase()))))
    }))
  }
}
