import { Context, Data, type DateTime, type Effect, type Stream } from "effect"
import type { OutboxEvent } from "../Event.js"
import type { WebhookEndpointId } from "../Ids.js"
import type { ClaimRequest } from "./DeliveryQueue.js"
import type { SigningSecrets } from "./WebhookEndpoints.js"

/**
 * One event to one endpoint. sendId names the queued row (for complete); the x-service-delivery
 * id every retry reuses is derived from the event and endpoint ids (see @herald/webhooks deliveryIdFor).
 */
export interface ClaimedSend {
  readonly sendId: string
  readonly event: OutboxEvent
  readonly endpoint: {
    readonly id: WebhookEndpointId
    readonly url: string
    readonly secrets: SigningSecrets
  }
  /** Attempts already made before this one. */
  readonly attempts: number
}

/**
 * How a send ended.
 * - Sent: a 2xx accepted it; the endpoint's failure streak resets.
 * - Retry: try again at dueAt.
 * - GaveUp: no more tries; the endpoint's streak grows and it is turned off at disableAfter.
 */
export type OutboxSendOutcome = Data.TaggedEnum<{
  Sent: { readonly at: DateTime.Utc }
  Retry: { readonly at: DateTime.Utc; readonly dueAt: DateTime.Utc; readonly error: string }
  GaveUp: { readonly at: DateTime.Utc; readonly error: string; readonly disableAfter: number }
}>
export const OutboxSendOutcome = Data.taggedEnum<OutboxSendOutcome>()

/**
 * Webhook sends fanned out from the event outbox (one per subscribed, enabled endpoint, written
 * in the event's transaction) and handed to senders under expiring leases.
 */
export class OutboxQueue extends Context.Tag("@herald/core/OutboxQueue")<OutboxQueue, {
  readonly claimDue: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<ClaimedSend>>
  /** Records the outcome and releases the lease; ignored when the worker no longer holds it. */
  readonly complete: (sendId: string, worker: string, outcome: OutboxSendOutcome) => Effect.Effect<void>
  /** Emits when new events may be waiting. Only a hint: polling stays the source of truth. */
  readonly wakeups: Stream.Stream<void>
}>() {}
