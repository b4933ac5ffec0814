import { Effect, Layer } from "effect"
import { defaultMetricsSyncOptions, type MetricsSyncOptions, runMetricsSync } from "./MetricsSync.js"
import { type PublishingDispatcherOptions, defaultPublishingDispatcherOptions, runPublishingDispatcher } from "./PublishingDispatcher.js"

export * from "./MetricsSync.js"
export * from "./PublishingDispatcher.js"

/**
 * The background workers (the publishing dispatcher and the metrics sync) running for the life of
 * the layer. Closing it (SIGTERM) stops claiming, finishes the deliveries in flight and releases
 * their leases; a metrics fetch interrupted leaves its lease to lapse.
 *
 * Requires: DeliveryQueue, PostStore, ProjectStore, AccountStore, MediaLibrary, AccountConnections,
 * WorkerHeartbeats, IdGenerator (events), Publishers, TopicClassifier and ToneClassifier (the
 * guardrails run again before each delivery), MetricsStore and MetricsSources. StorageLive
 * provides the storage ports; the simulator's Publishers and MetricsSources come from
 * @herald/publishers.
 */
export const workers = (options: Partial<PublishingDispatcherOptions> = {}, metrics: Partial<MetricsSyncOptions> = {}) =>
  Layer.scopedDiscard(Effect.all([
    Effect.forkScoped(Effect.scoped(runPublishingDispatcher({ ...defaultPublishingDispatcherOptions(), ...options }))),
    Effect.forkScoped(runMetricsSync({ ...defaultMetricsSyncOptions(), ...metrics }))
  ]))

/** The workers with their default settings. */
export const Workers = workers()
