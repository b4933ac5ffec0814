// One dispatcher process for the crash test and the dispatch benchmark:
//   DATABASE_URL=... HERALD_SIMULATOR_URL=... HERALD_CREDENTIALS_KEY=... node --conditions=herald-source --import tsx worker-process.ts
// Optional: WORKER_NAME, WORKER_CONCURRENCY, LEASE_MS, PUBLISH_TIMEOUT_MS, RECHECK_MS, BACKOFF_MS, POLL_MS, DB_POOL.
// Runs until SIGTERM (a graceful stop) or SIGKILL (the crash test's point).
import { NodeRuntime } from "@effect/platform-node"
import { ClassifiersUnavailable, IdGenerator } from "@herald/core"
import { SimulatorPublishers } from "@herald/publishers"
import { StorageLive } from "@herald/storage-postgres"
import { Duration, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { defaultPublishingDispatcherOptions, workers } from "../../src/workers/index.js"

const env = (name: string) => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is required`)
  return value
}
const numberEnv = (name: string, fallback: number) => {
  const value = process.env[name]
  return value === undefined || value === "" ? fallback : Number(value)
}

const defaults = defaultPublishingDispatcherOptions()
const options = {
  worker: process.env.WORKER_NAME ?? defaults.worker,
  concurrency: numberEnv("WORKER_CONCURRENCY", defaults.concurrency),
  leaseMillis: numberEnv("LEASE_MS", defaults.leaseMillis),
  publishTimeout: Duration.millis(numberEnv("PUBLISH_TIMEOUT_MS", Duration.toMillis(defaults.publishTimeout))),
  recheckMin: Duration.millis(numberEnv("RECHECK_MS", Duration.toMillis(defaults.recheckMin))),
  backoffBase: Duration.millis(numberEnv("BACKOFF_MS", Duration.toMillis(defaults.backoffBase))),
  pollInterval: Duration.millis(numberEnv("POLL_MS", Duration.toMillis(defaults.pollInterval)))
}

const storage = StorageLive.layer({
  databaseUrl: Option.some(Redacted.make(env("DATABASE_URL"))),
  dataDir: "unused",
  credentialsKey: Redacted.make(env("HERALD_CREDENTIALS_KEY")),
  maxConnections: numberEnv("DB_POOL", 8)
})

const main = workers(options).pipe(
  Layer.provide(Layer.mergeAll(
    storage,
    SimulatorPublishers.layer({ baseUrl: env("HERALD_SIMULATOR_URL") }),
    Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) })),
    ClassifiersUnavailable
  ))
)

// As `herald work` runs (bin.ts): no trace exporter is configured, so spans would be recorded for nobody.
NodeRuntime.runMain(Layer.launch(main).pipe(Logger.withMinimumLogLevel(LogLevel.Warning), Effect.withTracerEnabled(false)))
