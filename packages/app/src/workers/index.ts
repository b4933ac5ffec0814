import { Effect, Layer } from "effect"
import { type ConnectionCheckerOptions, defaultConnectionCheckerOptions, runConnectionChecker } from "./ConnectionChecker.js"
import { defaultMetricsSyncOptions, type MetricsSyncOptions, runMetricsSync } from "./MetricsSync.js"
import { type PublishingDispatcherOptions, defaultPublishingDispatcherOptions, runPublishingDispatcher } from "./PublishingDispatcher.js"

export * from "./ApprovalNotifier.js"
export * from "./ConnectionChecker.js"
export * from "./MetricsSync.js"
export * from "./PublishingDispatcher.js"

/**
 * The background workers (the publishing dispatcher, the metrics sync and the connection checker)
 * running for the life of the layer. Closing it (SIGTERM) stops claiming, finishes the deliveries
 * in flight and releases their leases; a metrics fetch or a probe interrupted leaves its lease to lapse.
 *
 * Requires: DeliveryQueue, PostStore, ProjectStore, AccountStore, MediaLibrary, AccountConnections,
 * ConnectionChecks, WorkerHeartbeats, IdGenerator (events), Publishers, ConnectionProbes,
 * Classifier (the guardrails run again before each delivery), MetricsStore
 * and MetricsSources. StorageLive provides the storage ports; the simulator's Publishers,
 * MetricsSources and ConnectionProbes come from @herald/publishers.
 */
export const workers = (
  options: Partial<PublishingDispatcherOptions> = {},
  metrics: Partial<MetricsSyncOptions> = {},
  checker: Partial<ConnectionCheckerOptions> = {}
) =>
  Layer.scopedDiscard(Effect.all([
    Effect.forkScoped(Effect.scoped(runPublishingDispatcher({ ...defaultPublishingDispatcherOptions(), ...options }))),
    Effect.forkScoped(runMetricsSync({ ...defaultMetricsSyncOptions(), ...metrics })),
    Effect.forkScoped(runConnectionChecker({ ...defaultConnectionCheckerOptions(), ...checker }))
  ]))

/** The workers with their default settings. */
export const Workers = workers()
