import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, type Redacted } from "effect"
import { ChangeNotices } from "./ChangeNotices.js"
import { CredentialsCipher } from "./CredentialsCipher.js"
import { MigrationsLive } from "./Migrations.js"
import * as PgLiteServer from "./PgLiteServer.js"
import { PostgresAccountConnections } from "./PostgresAccountConnections.js"
import { PostgresAccounts } from "./PostgresAccounts.js"
import { PostgresApprovalChannels } from "./PostgresApprovalChannels.js"
import { PostgresConnectionChecks } from "./PostgresConnectionChecks.js"
import { PostgresConnectionStates } from "./PostgresConnectionStates.js"
import { PostgresApiKeyStore } from "./PostgresApiKeyStore.js"
import { PostgresDeliveryQueue } from "./PostgresDeliveryQueue.js"
import { PostgresMedia } from "./PostgresMedia.js"
import { PostgresMetricsStore } from "./PostgresMetricsStore.js"
import { PostgresPostStore } from "./PostgresPostStore.js"
import { PostListCache } from "./PostListCache.js"
import { PostgresProjects } from "./PostgresProjects.js"
import { PostgresPublishingPauses } from "./PostgresPublishingPauses.js"
import { PostgresRateLimitStore } from "./PostgresRateLimitStore.js"
import { PostgresUploadTickets } from "./PostgresUploadTickets.js"
import { PostgresWebhookDeliveryLog } from "./PostgresWebhookDeliveryLog.js"
import { PostgresWebhooks } from "./PostgresWebhooks.js"
import { PostgresPinterestBoards } from "./PostgresPinterestBoards.js"
import { PostgresPlatformQuotas } from "./PostgresPlatformQuotas.js"
import { PostgresPublishCheckpoints } from "./PostgresPublishCheckpoints.js"
import { PostgresWorkerHeartbeats } from "./PostgresWorkerHeartbeats.js"
import { Wakeups } from "./Wakeups.js"

export interface StorageConfig {
  /** A PostgreSQL server; when absent, the embedded PGlite store on dataDir. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  /** 32 bytes (base64 or hex) that seal platform credentials and webhook secrets. */
  readonly credentialsKey: Redacted.Redacted
  /** Pool size on a real server (the embedded store always uses one connection). */
  readonly maxConnections?: number
}

/** DATABASE_URL, HERALD_DATA_DIR (default ./.herald), HERALD_CREDENTIALS_KEY. */
export const config: Config.Config<StorageConfig> = Config.all({
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.withDefault(Config.string("HERALD_DATA_DIR"), "./.herald"),
  credentialsKey: Config.redacted("HERALD_CREDENTIALS_KEY")
})

/** The database connection alone: a PgClient (and SqlClient), the worker wake-ups and the change notices. */
export const database = (config: Pick<StorageConfig, "databaseUrl" | "dataDir" | "maxConnections">) =>
  Option.match(config.databaseUrl, {
    onNone: () => PgLiteServer.layer({ dataDir: config.dataDir }),
    onSome: (url) =>
      Layer.merge(Wakeups.postgres, ChangeNotices.postgres).pipe(
        Layer.provideMerge(PgClient.layer({ url, maxConnections: config.maxConnections ?? 10 }))
      )
  })

/** Every repository, over a database that already has a connection and wake-ups. */
export const repositories = Layer.mergeAll(
  PostgresProjects,
  PostgresAccounts,
  PostgresAccountConnections,
  PostgresConnectionChecks,
  PostgresConnectionStates,
  PostgresMedia,
  PostListCache.pipe(Layer.provide(PostgresPostStore)),
  PostgresApiKeyStore,
  PostgresRateLimitStore,
  PostgresUploadTickets,
  PostgresDeliveryQueue,
  PostgresMetricsStore,
  PostgresWebhooks,
  PostgresWebhookDeliveryLog,
  PostgresWorkerHeartbeats,
  PostgresPublishCheckpoints,
  PostgresPinterestBoards,
  PostgresPlatformQuotas,
  PostgresPublishingPauses,
  PostgresApprovalChannels,
  // Merged, so the layer is ready only once the schema is current.
  MigrationsLive
)

/**
 * Herald's storage: connects (or starts the embedded database), migrates, and provides every
 * storage port plus the SqlClient/PgClient.
 */
export const layer = (config: StorageConfig) =>
  repositories.pipe(
    Layer.provide(CredentialsCipher.layer(config.credentialsKey)),
    Layer.provideMerge(database(config))
  )

/** `layer` configured from the environment. */
export const fromEnv = Layer.unwrapEffect(Effect.map(config, layer))
