import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { EventId, EventKind, ProjectId, Timestamp, WebhookAttemptOutcome, WebhookEndpointId } from "@herald/core"
import { Schema } from "effect"
import { AdminConflict, AdminNotFound } from "../HttpErrors.js"
import { integerFromQuery } from "../RequestPath.js"

export const AdminWebhookAttempt = Schema.Struct({
  event_id: EventId,
  event: EventKind,
  delivery_id: Schema.UUID.annotations({ description: "The x-service-delivery id; the same on every attempt of the event." }),
  attempt: Schema.Int.annotations({ description: "1 for the first send; a manual resend starts again at 1." }),
  at: Timestamp.annotations({ description: "When the attempt ended (ISO 8601 UTC)." }),
  status_code: Schema.NullOr(Schema.Int).annotations({ description: "null when no response came." }),
  latency_ms: Schema.Int,
  response_prefix: Schema.String.annotations({ description: "The first 512 bytes of the reply, as UTF-8." }),
  error: Schema.NullOr(Schema.String).annotations({ description: "Why the attempt was not accepted; null when it was." }),
  outcome: WebhookAttemptOutcome.annotations({ description: "sent, retry (another try is scheduled) or given_up." })
}).annotations({ identifier: "AdminWebhookAttempt" })
export type AdminWebhookAttempt = typeof AdminWebhookAttempt.Type

/** Unknown parameters are refused by AdminUrlGuard, from the ones this struct declares. */
export const DeliveryLogParams = Schema.Struct({
  limit: Schema.optionalWith(integerFromQuery(1, 500, 50, "How many attempts, newest first."), { default: () => 50 }),
  event_id: Schema.optional(EventId)
}).annotations({ parseOptions: { errors: "all" } })

const deliveriesPath = Schema.Struct({ project_id: ProjectId, webhook_id: WebhookEndpointId })

/** The delivery log of a webhook endpoint and the manual resend of a given-up event. */
export class AdminWebhookDeliveriesGroup extends HttpApiGroup.make("webhookDeliveries")
  .add(
    HttpApiEndpoint.get("list", "/projects/:project_id/webhooks/:webhook_id/deliveries")
      .setPath(deliveriesPath)
      .setUrlParams(DeliveryLogParams)
      .addSuccess(Schema.Struct({ data: Schema.Array(AdminWebhookAttempt) }).annotations({ identifier: "AdminWebhookAttemptList" }))
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "An endpoint's delivery log, newest attempt first (limit 1-500, default 50; event_id filters)")
  )
  .add(
    HttpApiEndpoint.post("resend", "/projects/:project_id/webhooks/:webhook_id/deliveries/:event_id/resend")
      .setPath(Schema.Struct({ ...deliveriesPath.fields, event_id: EventId }))
      .addSuccess(
        Schema.Struct({ webhook_id: WebhookEndpointId, event_id: EventId, queued: Schema.Literal(true) })
          .annotations({ identifier: "AdminWebhookResend" }),
        { status: 202 }
      )
      .addError(AdminNotFound)
      .addError(AdminConflict)
      .annotate(
        OpenApi.Summary,
        "Send a given-up event again, with the same delivery id and a fresh retry schedule (409 unless given up; " +
          "it goes out once the endpoint is enabled)"
      )
  )
{}
