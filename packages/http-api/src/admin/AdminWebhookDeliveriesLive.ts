import { HttpApiBuilder } from "@effect/platform"
import { type WebhookAttempt, WebhookDeliveryLog } from "@herald/core"
import { DateTime, Effect } from "effect"
import { AdminConflict, AdminNotFound } from "../HttpErrors.js"
import { groupContext } from "../RequestPath.js"
import { AdminAuthentication, AdminBodyGuard, AdminUrlGuard, HeraldAdminApi } from "./AdminApi.js"
import type { AdminWebhookAttempt } from "./AdminWebhookDeliveriesApi.js"

const adminWebhookAttempt = (attempt: WebhookAttempt): AdminWebhookAttempt => ({
  event_id: attempt.eventId,
  event: attempt.kind,
  delivery_id: attempt.deliveryId,
  attempt: attempt.attempt,
  at: DateTime.formatIso(attempt.at),
  status_code: attempt.statusCode,
  latency_ms: attempt.latencyMs,
  response_prefix: attempt.responsePrefix,
  error: attempt.error,
  outcome: attempt.outcome
})

/** The endpoint is looked up within the project, so another project's endpoint is a 404 too. */
const endpointNotFound = ({ message }: { readonly message: string }) =>
  Effect.fail(new AdminNotFound({ error: message, code: "webhook_endpoint_not_found" }))

export const AdminWebhookDeliveriesLive = HttpApiBuilder.group(HeraldAdminApi, "webhookDeliveries", (handlers) =>
  handlers
    .handle("list", ({ path, urlParams }) =>
      Effect.flatMap(WebhookDeliveryLog, (log) =>
        log.list(path.project_id, path.webhook_id, {
          limit: urlParams.limit,
          ...(urlParams.event_id === undefined ? {} : { eventId: urlParams.event_id })
        })).pipe(
          Effect.map((attempts) => ({ data: attempts.map(adminWebhookAttempt) })),
          Effect.catchTag("WebhookEndpointNotFound", endpointNotFound)
        ))
    .handle("resend", ({ path }) =>
      Effect.gen(function*() {
        const log = yield* WebhookDeliveryLog
        yield* log.resend(path.project_id, path.webhook_id, path.event_id, yield* DateTime.now)
        return { webhook_id: path.webhook_id, event_id: path.event_id, queued: true as const }
      }).pipe(
        Effect.catchTags({
          WebhookEndpointNotFound: endpointNotFound,
          WebhookSendNotFound: ({ message }) => Effect.fail(new AdminNotFound({ error: message, code: "webhook_send_not_found" })),
          WebhookSendNotGivenUp: ({ message }) => Effect.fail(new AdminConflict({ error: message, code: "webhook_send_not_given_up" }))
        })
      ))
).pipe(groupContext(AdminAuthentication, AdminBodyGuard, AdminUrlGuard, WebhookDeliveryLog))
