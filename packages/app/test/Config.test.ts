import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either } from "effect"
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

describe("the connection checker's throttle", () => {
  it.effect("defaults to every 6 hours, hourly inside a 7-day expiry warning window", () =>
    Effect.gen(function*() {
      const { connectionChecks } = Either.getOrThrow(yield* read({}))
      expect([connectionChecks.every, connectionChecks.expiringEvery, connectionChecks.warningWindow].map(Duration.toMillis))
        .toEqual([6 * 3_600_000, 3_600_000, 7 * 86_400_000])
    }))

  it.effect("takes durations from the environment and refuses one under a minute, naming the variable", () =>
    Effect.gen(function*() {
      const config = Either.getOrThrow(yield* read({ HERALD_CONNECTION_CHECK_EVERY: "90 minutes", HERALD_CONNECTION_EXPIRY_WARNING: "3 days" }))
      expect(Duration.toMillis(config.connectionChecks.every)).toBe(90 * 60_000)
      expect(Duration.toMillis(config.connectionChecks.warningWindow)).toBe(3 * 86_400_000)
      for (const value of ["5 seconds", "often"]) {
        const refused = yield* read({ HERALD_CONNECTION_CHECK_EXPIRING_EVERY: value })
        expect(Either.isLeft(refused)).toBe(true)
        if (Either.isLeft(refused)) expect(String(refused.left)).toContain("HERALD_CONNECTION_CHECK_EXPIRING_EVERY")
      }
    }))
})

describe("the delivery's time limit and the platform calls' deadlines", () => {
  it.effect("default to 15 minutes for a delivery, and 15 s, 30 s and 5 minutes for a read, a publish call and an upload", () =>
    Effect.gen(function*() {
      const { callDeadlines, deliveryTimeout } = Either.getOrThrow(yield* read({}))
      expect(Duration.toMillis(deliveryTimeout)).toBe(15 * 60_000)
      expect([callDeadlines.read, callDeadlines.publish, callDeadlines.upload].map(Duration.toMillis)).toEqual([15_000, 30_000, 300_000])
    }))

  it.effect("take durations from the environment (a deployment posting long videos)", () =>
    Effect.gen(function*() {
      const { callDeadlines, deliveryTimeout } = Either.getOrThrow(yield* read({
        HERALD_DELIVERY_TIMEOUT: "40 minutes",
        HERALD_CALL_TIMEOUT_READ: "20 seconds",
        HERALD_CALL_TIMEOUT_PUBLISH: "1 minute",
        HERALD_CALL_TIMEOUT_UPLOAD: "30 minutes"
      }))
      expect(Duration.toMillis(deliveryTimeout)).toBe(40 * 60_000)
      expect([callDeadlines.read, callDeadlines.publish, callDeadlines.upload].map(Duration.toMillis)).toEqual([20_000, 60_000, 1_800_000])
    }))

  it.effect("refuse a deadline under a second, and a delivery limit shorter than an upload and a post, naming the variables", () =>
    Effect.gen(function*() {
      const tooShort = yield* read({ HERALD_CALL_TIMEOUT_UPLOAD: "10 millis" })
      expect(Either.isLeft(tooShort) && String(tooShort.left)).toContain("HERALD_CALL_TIMEOUT_UPLOAD")
      const cut = yield* read({ HERALD_DELIVERY_TIMEOUT: "5 minutes" })
      expect(Either.isLeft(cut) && String(cut.left)).toContain("HERALD_DELIVERY_TIMEOUT must be at least HERALD_CALL_TIMEOUT_UPLOAD plus HERALD_CALL_TIMEOUT_PUBLISH")
    }))
})
