import { Migrator, SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { CredentialsCipher } from "./CredentialsCipher.js"
import initial from "./migrations/0001_initial.js"
import webhookAttempts from "./migrations/0002_webhook_attempts.js"
import uploadTickets from "./migrations/0003_upload_tickets.js"
import deliveryClaimIndexes from "./migrations/0004_delivery_claim_indexes.js"
import mediaCodec from "./migrations/0005_media_codec.js"
import changeNotices from "./migrations/0006_change_notices.js"
import rateLimitGrants from "./migrations/0007_rate_limit_grants.js"
import claimInIndexOrder from "./migrations/0008_claim_in_index_order.js"
import adminTokens from "./migrations/0009_admin_tokens.js"
import deliveryErrorCategories from "./migrations/0011_delivery_error_categories.js"
import accountConnections from "./migrations/0012_account_connections.js"
import deliveryMetrics from "./migrations/0014_delivery_metrics.js"
import connectionHealth from "./migrations/0015_connection_health.js"
import analyticsRollups from "./migrations/0016_analytics_rollups.js"
import publishingPauses from "./migrations/0017_publishing_pauses.js"
import provenance from "./migrations/0018_provenance.js"
import deliveryFollowUps from "./migrations/0019_delivery_follow_ups.js"
import publishCheckpoints from "./migrations/0022_publish_checkpoints.js"
import connectionStateRoutes from "./migrations/0025_connection_state_routes.js"
import oauthStateCarried from "./migrations/0029_oauth_state_carried.js"
import platformQuotas from "./migrations/0031_platform_quotas.js"
import pinterestBoards from "./migrations/0033_pinterest_boards.js"
import accountReports from "./migrations/0035_account_reports.js"
import approvalChannels from "./migrations/0037_approval_channels.js"
import approvalMessages from "./migrations/0038_approval_messages.js"
import dashboardSessions from "./migrations/0039_dashboard_sessions.js"
import webhookSecretRotation from "./migrations/0044_webhook_secret_rotation.js"
import metricsHistory from "./migrations/0046_metrics_history.js"
import approvalMessageHolds from "./migrations/0047_approval_message_holds.js"
import sealedCheckpoints from "./migrations/0050_sealed_checkpoints.js"
import credentialRenewalLeases from "./migrations/0051_credential_renewal_leases.js"

/** The table that records which migrations ran; the migrator locks it while it runs (see `migrationRunning`). */
const table = "herald_migrations"

const run = Migrator.make({})

/**
 * Brings the schema up to date (forward only): what `herald migrate` runs. Takes the credentials
 * cipher because a migration may seal values stored in the clear before it.
 */
export const migrate = run({
  loader: Effect.flatMap(CredentialsCipher, (cipher) => Migrator.fromRecord({
    "0001_initial": initial,
    "0002_webhook_attempts": webhookAttempts,
    "0003_upload_tickets": uploadTickets,
    "0004_delivery_claim_indexes": deliveryClaimIndexes,
    "0005_media_codec": mediaCodec,
    "0006_change_notices": changeNotices,
    "0007_rate_limit_grants": rateLimitGrants,
    "0008_claim_in_index_order": claimInIndexOrder,
    "0009_admin_tokens": adminTokens,
    "0011_delivery_error_categories": deliveryErrorCategories,
    "0012_account_connections": accountConnections,
    "0014_delivery_metrics": deliveryMetrics,
    "0015_connection_health": connectionHealth,
    "0016_analytics_rollups": analyticsRollups,
    "0017_publishing_pauses": publishingPauses,
    "0018_provenance": provenance,
    "0019_delivery_follow_ups": deliveryFollowUps,
    "0022_publish_checkpoints": publishCheckpoints,
    "0025_connection_state_routes": connectionStateRoutes,
    "0029_oauth_state_carried": oauthStateCarried,
    "0031_platform_quotas": platformQuotas,
    "0033_pinterest_boards": pinterestBoards,
    "0035_account_reports": accountReports,
    "0037_approval_channels": approvalChannels,
    "0038_approval_messages": approvalMessages,
    "0039_dashboard_sessions": dashboardSessions,
    "0044_webhook_secret_rotation": webhookSecretRotation,
    "0046_metrics_history": metricsHistory,
    "0047_approval_message_holds": approvalMessageHolds,
    "0050_sealed_checkpoints": sealedCheckpoints(cipher),
    "0051_credential_renewal_leases": credentialRenewalLeases
  })),
  table
})

/** Runs the migrations when the storage starts. */
export const MigrationsLive = Layer.effectDiscard(migrate)

/**
 * Whether some process is migrating this database now, or waiting to: the migrator takes an
 * exclusive lock on its table for the whole run (@effect/sql's Migrator on PostgreSQL), and the
 * lock table shows it without waiting for it.
 */
export const migrationRunning = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly running: boolean }>`
    SELECT EXISTS (
      SELECT 1 FROM pg_locks WHERE relation = to_regclass(${table}) AND mode = 'AccessExclusiveLock'
    ) AS running`).pipe(Effect.map((rows) => rows[0]?.running === true))
