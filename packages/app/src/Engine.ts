import { randomUUID } from "node:crypto"
import { ClassifiersUnavailable, IdGenerator } from "@herald/core"
import { noMediaIngest } from "@herald/core/memory"
import { NodeHttpClient } from "@effect/platform-node"
import { HttpApiConfig } from "@herald/http-api"
import { Simulator, SimulatorPublishers } from "@herald/publishers"
import { StorageLive } from "@herald/storage-postgres"
import { Effect, Layer, Option, type Redacted } from "effect"
import { PostgresAdminTokens } from "./AdminTokenStore.js"

/** Fresh v4 UUIDs from node:crypto. */
export const RandomIds = Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))

export interface EngineOptions {
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly credentialsKey: Redacted.Redacted
  /** Pool size on PostgreSQL. */
  readonly maxConnections?: number
  /** A simulator already running elsewhere; none: one is started in this process on loopback. */
  readonly simulatorUrl: Option.Option<string>
}

/**
 * The simulator route's publishers, pointed at HERALD_SIMULATOR_URL or at a simulator started in
 * this process (every process of a deployment then has its own simulated networks).
 */
export const simulatorPublishers = (simulatorUrl: Option.Option<string>) =>
  Option.match(simulatorUrl, {
    onNone: () => Simulator.inProcess(),
    onSome: (baseUrl) => SimulatorPublishers.layer({ baseUrl })
  }).pipe(Layer.provide(NodeHttpClient.layerUndici))

/**
 * Everything the use cases, the REST and admin APIs and the workers need, without HTTP: storage
 * (migrated), admin tokens, ids, the simulator's publishers, classifiers reported unavailable
 * (guardrails skip the topic and tone rules) and media ingestion not configured (media comes with
 * its own issue).
 */
export const engineLayer = (options: EngineOptions) =>
  Layer.mergeAll(
    PostgresAdminTokens,
    RandomIds,
    ClassifiersUnavailable,
    noMediaIngest,
    simulatorPublishers(options.simulatorUrl)
  ).pipe(
    Layer.provideMerge(StorageLive.layer(options))
  )

/** What the REST layer reads from the configuration: the public base URL and the approval-link secret. */
export const httpApiConfig = (baseUrl: string, approvalSecret: Redacted.Redacted) =>
  Layer.succeed(HttpApiConfig, HttpApiConfig.of({ baseUrl, approvalSecret }))
