import { Effect, Layer } from "effect"
import { type DispatcherOptions, defaultDispatcherOptions, runDispatcher } from "./Dispatcher.js"

export * from "./Dispatcher.js"

/**
 * The background workers (today: the dispatcher) running for the life of the layer. Closing it
 * (SIGTERM) stops claiming, finishes the deliveries in flight and releases their leases.
 *
 * Requires: DeliveryQueue, PostStore, ProjectStore, AccountStore, MediaLibrary, AccountConnections,
 * WorkerHeartbeats, IdGenerator (events), Publishers, TopicClassifier and ToneClassifier (the
 * guardrails run again before each delivery). StorageLive provides the storage ports; the
 * simulator's Publishers come from @herald/publishers.
 */
export const workers = (options: Partial<DispatcherOptions> = {}) =>
  Layer.scopedDiscard(
    Effect.forkScoped(Effect.scoped(runDispatcher({ ...defaultDispatcherOptions(), ...options })))
  )

/** The workers with their default settings. */
export const Workers = workers()
