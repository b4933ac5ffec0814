import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { batching } from "../src/Batching.js"

describe("batching", () => {
  it.scoped("items submitted together go out in one batch, at most maxBatch at a time, each answered in order", () =>
    Effect.gen(function*() {
      const batches: Array<ReadonlyArray<number>> = []
      const double = yield* batching((items: ReadonlyArray<number>) =>
        Effect.sync(() => {
          batches.push(items)
          return items.map((item) => item * 2)
        }), 4)
      const answers = yield* Effect.forEach([1, 2, 3, 4, 5, 6], double, { concurrency: "unbounded" })
      expect(answers).toEqual([2, 4, 6, 8, 10, 12])
      expect(batches).toEqual([[1, 2, 3, 4], [5, 6]])
      expect(yield* double(7)).toBe(14)
    }))

  it.scoped("a failed batch fails each of its items", () =>
    Effect.gen(function*() {
      const refuse = yield* batching((_: ReadonlyArray<string>) => Effect.fail("down" as const), 8)
      const results = yield* Effect.forEach(["a", "b"], (item) => Effect.either(refuse(item)), { concurrency: "unbounded" })
      expect(results.map((result) => result._tag === "Left" && result.left)).toEqual(["down", "down"])
    }))

  it.effect("once its scope has closed, an item is interrupted rather than left waiting", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const echo = yield* Scope.extend(batching((items: ReadonlyArray<number>) => Effect.succeed(items), 8), scope)
      expect(yield* echo(1)).toBe(1)
      yield* Scope.close(scope, Exit.void)
      expect(Exit.isInterrupted(yield* Effect.exit(echo(2)))).toBe(true)
    }))
})
