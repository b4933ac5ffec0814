import { Context, type DateTime, type Effect, Schema } from "effect"
import { EventKind } from "../Event.js"
import { EventId, ProjectId, WebhookEndpointId } from "../Ids.js"
import type { WebhookEndpointNotFound } from "./WebhookEndpoints.js"

/** What one attempt led to: accepted, another try scheduled, or the event given up. */
export const WebhookAttemptOutcome = Schema.Literal("sent", "retry", "given_up")
export type WebhookAttemptOutcome = typeof WebhookAttemptOutcome.Type

/** One attempt to deliver one event to one endpoint, as the delivery log keeps it. */
export class WebhookAttempt extends Schema.Class<WebhookAttempt>("WebhookAttempt")({
  projectId: ProjectId,
  endpointId: WebhookEndpointId,
  eventId: EventId,
  kind: EventKind,
  /** The x-service-delivery id the attempt carried; the same on every attempt of the event. */
  deliveryId: Schema.UUID,
  /** 1 for the first send of a run; a manual resend starts a new run at 1. */
  attempt: Schema.Int.pipe(Schema.positive()),
  at: Schema.DateTimeUtc,
  /** The HTTP status, or null when no response came (refused destination, timeout, network). */
  statusCode: Schema.NullOr(Schema.Int),
  latencyMs: Schema.Int.pipe(Schema.nonNegative()),
  /** The first bytes of the reply (512 at most), as UTF-8. */
  responsePrefix: Schema.String,
  /** Why the attempt was not accepted; null when it was. */
  error: Schema.NullOr(Schema.String),
  outcome: WebhookAttemptOutcome
}) {}

/** No event of that id was ever sent to the endpoint. */
export class WebhookSendNotFound extends Schema.TaggedError<WebhookSendNotFound>()("WebhookSendNotFound", {
  endpointId: Schema.String,
  eventId: Schema.String
}) {
  override get message(): string {
    return `event ${this.eventId} was never queued for webhook endpoint ${this.endpointId}`
  }
}

/** Only a given-up event can be sent again by hand; a pending one is still being tried. */
export class WebhookSendNotGivenUp extends Schema.TaggedError<WebhookSendNotGivenUp>()("WebhookSendNotGivenUp", {
  eventId: Schema.String,
  status: Schema.Literal("pending", "sent")
}) {
  override get message(): string {
    return this.status === "pending"
      ? `event ${this.eventId} is still being delivered; only a given-up event can be resent`
      : `event ${this.eventId} was delivered; only a given-up event can be resent`
  }
}

export interface DeliveryLogQuery {
  /** Newest first, at most this many. */
  readonly limit: number
  /** Only the attempts of this event. */
  readonly eventId?: EventId
}

/**
 * The per-endpoint record of every webhook attempt (status, latency, first bytes of the reply),
 * and the manual resend of a given-up event.
 */
export class WebhookDeliveryLog extends Context.Tag("@herald/core/WebhookDeliveryLog")<WebhookDeliveryLog, {
  readonly record: (attempt: WebhookAttempt) => Effect.Effect<void>
  readonly list: (
    projectId: ProjectId,
    endpointId: WebhookEndpointId,
    query: DeliveryLogQuery
  ) => Effect.Effect<ReadonlyArray<WebhookAttempt>, WebhookEndpointNotFound>
  /**
   * Queues a given-up event for the endpoint again, due at `now`, with a fresh retry schedule and
   * the same delivery id. It goes out once the endpoint is enabled.
   */
  readonly resend: (
    projectId: ProjectId,
    endpointId: WebhookEndpointId,
    eventId: EventId,
    now: DateTime.Utc
  ) => Effect.Effect<void, WebhookEndpointNotFound | WebhookSendNotFound | WebhookSendNotGivenUp>
}>() {}
