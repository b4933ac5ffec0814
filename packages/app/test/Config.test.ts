import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { heraldConfig } from "../src/Config.js"
import { defaultPublishingDispatcherOptions } from "../src/workers/index.js"

const read = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(heraldConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("HERALD_DELIVERIES_IN_FLIGHT", () => {
  it.effect("defaults to the dispatcher's own concurrency", () =>
    Effect.gen(function*() {
      const config = yield* read({})
      expect(Either.getOrThrow(config).deliveriesInFlight).toBe(defaultPublishingDispatcherOptions().concurrency)
    }))

  it.effect("takes a count from the environment", () =>
    Effect.gen(function*() {
      const config = yield* read({ HERALD_DELIVERIES_IN_FLIGHT: "128" })
      expect(Either.getOrThrow(config).deliveriesInFlight).toBe(128)
    }))

  it.effect("refuses a count out of range or not a number, naming the variable", () =>
    Effect.gen(function*() {
      for (const value of ["0", "1025", "many"]) {
        const config = yield* read({ HERALD_DELIVERIES_IN_FLIGHT: value })
        expect(Either.isLeft(config)).toBe(true)
        if (Either.isLeft(config)) expect(String(config.left)).toContain("HERALD_DELIVERIES_IN_FLIGHT")
      }
    }))
})
