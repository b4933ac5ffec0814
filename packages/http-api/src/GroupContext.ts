import { Context, Effect, Layer, Scope } from "effect"

/**
 * A handler group's layer built with only the services named, however many its surroundings hold.
 * HttpApiBuilder.group keeps the whole context it was built in and merges it into the context of
 * every request it serves (a copy of both), and every provide on the request's way copies the
 * result again: built inside the engine, that is about fifty services per copy. The names are
 * checked: the group must need nothing that is not named. It is built into the same memo map as
 * the layers around it, so the router it adds its routes to is the one the API serves.
 */
export const groupContext = <const Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) => // eslint-disable-line @typescript-eslint/no-explicit-any
<ROut, E>(group: Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>>) =>
  Layer.scopedContext(Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const memoMap = yield* Layer.CurrentMemoMap
    const named = Context.pick(...tags)(yield* Effect.context<Context.Tag.Identifier<Tags[number]>>())
    // Replaced, not provided: Effect.provide adds to the context it runs in.
    return yield* Effect.mapInputContext(Layer.buildWithMemoMap(group, memoMap, scope), (_: Context.Context<never>) => named)
  }))
