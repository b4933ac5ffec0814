import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { inSpan, traced } from "../src/Tracing.js"

/** The name of the span the effect runs in, if any. */
const spanName = Effect.map(Effect.option(Effect.currentSpan), Option.map((span) => span.name))

describe("traced and inSpan", () => {
  const greet = traced("Greeter.greet")(
    function*(name: string) {
      return { greeting: `hello ${name}`, span: yield* spanName }
    },
    // Pipeables get the effect and the call's arguments, as with Effect.fn.
    (effect, name) => Effect.map(effect, (result) => ({ ...result, piped: name }))
  )
  const count = traced("Counter.count")((items: ReadonlyArray<number>) => Effect.map(spanName, (span) => ({ total: items.length, span })))

  it.effect("take their span while the tracer is enabled", () =>
    Effect.gen(function*() {
      expect(yield* greet("ada")).toEqual({ greeting: "hello ada", span: Option.some("Greeter.greet"), piped: "ada" })
      expect(yield* count([1, 2, 3])).toEqual({ total: 3, span: Option.some("Counter.count") })
      expect(yield* inSpan("Outer")(spanName)).toEqual(Option.some("Outer"))
    }))

  it.effect("take no span at all while it is disabled, and still run the body and its pipeables", () =>
    Effect.gen(function*() {
      expect(yield* greet("ada")).toEqual({ greeting: "hello ada", span: Option.none(), piped: "ada" })
      expect(yield* count([1, 2])).toEqual({ total: 2, span: Option.none() })
      expect(yield* inSpan("Outer")(spanName)).toEqual(Option.none())
    }).pipe(Effect.withTracerEnabled(false)))

  it.effect("fail as the body fails", () =>
    Effect.gen(function*() {
      const refuse = traced("Refuse")(function*(reason: string) {
        return yield* Effect.fail(reason)
      })
      expect(yield* Effect.flip(refuse("no"))).toBe("no")
      expect(yield* Effect.flip(refuse("still no").pipe(Effect.withTracerEnabled(false)))).toBe("still no")
    }))
})
