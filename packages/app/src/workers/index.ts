import { Effect, Layer } from "effect"
import { type PublishingDispatcherOptions, defaultPublishingDispatcherOptions, runPublishingDispatcher } from "./PublishingDispatcher.js"

export * from "./PublishingDispatcher.js"

/**
 * The background workers (today: the dispatcher) running for the life of the layer. Closing it
 * (SIGTERM) stops claiming, finishes the deliveries in flight and releases their leases.
 *
 * Requires: DeliveryQueue, PostStore, ProjectStore, AccountStore, MediaLibrary, AccountConnections,
 * WorkerHeartbeats, IdGenerator (events), Publishers, TopicClassifier and ToneClassifier (the
 * guardrails run again before each delivery). StorageLive provides the storage ports; the
 * simulator's Publishers come from @herald/publishers.
 */
export const workers = (options: Partial<PublishingDispatcherOptions> = {}) =>
  Layer.scopedDiscard(
    Effect.forkScoped(Effect.scoped(runPublishingDispatcher({ ...defaultPublishingDispatcherOptions(), ...options })))
  )

/** The workers with their default settings. */
export const Workers = workers()
