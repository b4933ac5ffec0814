import { randomUUID } from "node:crypto"
import { secretsInForce, webhookTestKind, WebhookTestEvents } from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Effect, Layer, Option } from "effect"
import { send, signingKeys } from "./Sender.js"
import { WebhookDeliveryId } from "./WebhookRequest.js"

/**
 * WebhookTestEvents through the real sender: signed with the endpoint's secrets in force, POSTed through the
 * outbound guard, judged as an event is (2xx accepted). Its delivery id is fresh on every test, so
 * a receiver that deduplicates by delivery id still sees each one.
 */
export const WebhookTestEventsLive = Layer.effect(
  WebhookTestEvents,
  Effect.map(OutboundGuard, (guard) =>
    WebhookTestEvents.of({
      send: (target, project) =>
        Effect.gen(function*() {
          const deliveryId = WebhookDeliveryId.make(randomUUID())
          const now = yield* DateTime.now
          const body = JSON.stringify({
            event: webhookTestKind,
            delivery_id: deliveryId,
            created_at: DateTime.formatIso(now),
            project: { id: project.id, name: project.name },
            data: { webhook_id: target.endpointId }
          })
          const result = yield* send(
            { url: target.url, secret: signingKeys(secretsInForce(target.secrets, now)) },
            { event: webhookTestKind, deliveryId, body }
          )
          return {
            deliveryId,
            statusCode: Option.getOrNull(result.status),
            latencyMs: result.latencyMs,
            responsePrefix: result.bodyPrefix,
            error: result.outcome._tag === "Accepted" ? null : result.outcome.reason
          }
        }).pipe(Effect.provideService(OutboundGuard, guard))
    }))
)
