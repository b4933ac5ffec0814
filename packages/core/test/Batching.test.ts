import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Scope, TestClock } from "effect"
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

  it.scoped("with a linger, items that arrive within it after the first go out with it; a full batch goes at once", () =>
    Effect.gen(function*() {
      const batches: Array<ReadonlyArray<number>> = []
      const echo = yield* batching((items: ReadonlyArray<number>) => Effect.sync(() => (batches.push(items), items)), 3, Duration.millis(50))
      const first = yield* Effect.fork(echo(1))
      yield* TestClock.adjust("30 millis")
      const second = yield* Effect.fork(echo(2))
      yield* TestClock.adjust("19 millis")
      expect(batches).toEqual([])
      yield* TestClock.adjust("1 millis")
      expect([yield* Fiber.join(first), yield* Fiber.join(second)]).toEqual([1, 2])
      expect(batches).toEqual([[1, 2]])
      // Three fill the batch: it is written without waiting for the linger.
      expect(yield* Effect.forEach([3, 4, 5], echo, { concurrency: "unbounded" })).toEqual([3, 4, 5])
      expect(batches).toEqual([[1, 2], [3, 4, 5]])
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
