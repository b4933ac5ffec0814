import { Context, Effect, Layer, Scope } from "effect"

// Keeping the context a request runs in small: every provide, scope and route on its way copies
// the fiber's whole context, and HttpApiBuilder merges what a handler group was built with into
// every request it serves. Built inside the engine, that is about fifty services per copy.

type Named<Tags extends ReadonlyArray<Context.Tag<any, any>>> = Context.Tag.Identifier<Tags[number]> // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Runs `effect` in only the named services of the context it is run in, in place of that context:
 * Effect.provide would add them to it. The names are checked: the effect must need nothing else.
 */
export const withOnly = <const Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) => // eslint-disable-line @typescript-eslint/no-explicit-any
<A, E>(effect: Effect.Effect<A, E, Named<Tags>>): Effect.Effect<A, E, Named<Tags>> =>
  Effect.flatMap(
    Effect.context<Named<Tags>>(),
    (context) => Effect.mapInputContext(effect, (_: Context.Context<never>) => Context.pick(...tags)(context))
  )

/**
 * A handler group's layer built with only the services named (`withOnly`), however many its
 * surroundings hold, so that is all it merges into each request. It is built into the same memo
 * map as the layers around it, so the router it adds its routes to is the one the API serves.
 */
export const groupContext = <const Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) => // eslint-disable-line @typescript-eslint/no-explicit-any
<ROut, E>(group: Layer.Layer<ROut, E, Named<Tags>>) =>
  Layer.scopedContext(Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const memoMap = yield* Layer.CurrentMemoMap
    return yield* withOnly(...tags)(Layer.buildWithMemoMap(group, memoMap, scope))
  }))
