import { randomUUID } from "node:crypto"
import { ClassifiersUnavailable, IdGenerator } from "@herald/core"
import { noMediaIngest } from "@herald/core/memory"
import { HttpApiConfig } from "@herald/http-api"
import { StorageLive } from "@herald/storage-postgres"
import { Effect, Layer, type Option, type Redacted } from "effect"
import { PostgresAdminTokens } from "./AdminTokenStore.js"
import { PublishersNotWired } from "./NotYetWired.js"

/** Fresh v4 UUIDs from node:crypto. */
export const RandomIds = Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))

export interface EngineOptions {
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly credentialsKey: Redacted.Redacted
  /** Pool size on PostgreSQL. */
  readonly maxConnections?: number
}

/**
 * Everything the use cases, the REST and admin APIs and the workers need, without HTTP: storage
 * (migrated), admin tokens, ids, publishers, classifiers reported unavailable (guardrails skip the
 * topic and tone rules) and media ingestion not configured (media comes with its own issue).
 */
export const engineLayer = (options: EngineOptions) =>
  Layer.mergeAll(PostgresAdminTokens, RandomIds, ClassifiersUnavailable, noMediaIngest, PublishersNotWired).pipe(
    Layer.provideMerge(StorageLive.layer(options))
  )

/** What the REST layer reads from the configuration: the public base URL and the approval-link secret. */
export const httpApiConfig = (baseUrl: string, approvalSecret: Redacted.Redacted) =>
  Layer.succeed(HttpApiConfig, HttpApiConfig.of({ baseUrl, approvalSecret }))
