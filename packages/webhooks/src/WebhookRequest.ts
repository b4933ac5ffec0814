import { createHash } from "node:crypto"
import type { EventId, EventKind, OutboxEvent, Project, WebhookEndpointId, webhookTestKind } from "@herald/core"
import { DateTime, Schema } from "effect"
import { signatureHeader, WebhookHeader } from "./WebhookSignature.js"

/** Identifies one event's delivery to one endpoint; every retry of it carries the same id. */
export const WebhookDeliveryId = Schema.UUID.pipe(Schema.brand("WebhookDeliveryId"))
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

const uuidBytes = (uuid: string): Buffer => Buffer.from(uuid.replaceAll("-", ""), "hex")

const formatUuid = (bytes: Buffer): string => {
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/**
 * The delivery id of `event` to `endpoint`: a UUID v5 (RFC 9562) named by the endpoint id in the
 * event id's namespace. Derived rather than stored, so a restarted sender, a retry and a manual
 * resend all reuse it without a lookup, and two endpoints never share one.
 */
export const deliveryIdFor = (event: EventId, endpoint: WebhookEndpointId): WebhookDeliveryId => {
  const hash = createHash("sha1").update(uuidBytes(event)).update(endpoint.toLowerCase()).digest().subarray(0, 16)
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  return WebhookDeliveryId.make(formatUuid(hash))
}

/** The JSON body every webhook carries, in wire form. */
export interface WebhookBody {
  readonly event: EventKind
  readonly delivery_id: WebhookDeliveryId
  readonly created_at: string
  readonly project: { readonly id: string; readonly name: string }
  readonly data: OutboxEvent["data"]
}

/**
 * One event addressed to one endpoint. `body` is the exact byte sequence that is signed and sent,
 * fixed once so every attempt sends the same bytes; only the timestamp and signature change.
 */
export interface WebhookRequest {
  /** An event's kind, or the test event's (WebhookTestEvents). */
  readonly event: EventKind | typeof webhookTestKind
  readonly deliveryId: WebhookDeliveryId
  readonly body: string
}

export const makeWebhookRequest = (
  event: OutboxEvent,
  project: Pick<Project, "id" | "name">,
  endpoint: WebhookEndpointId
): WebhookRequest => {
  const deliveryId = deliveryIdFor(event.id, endpoint)
  const body: WebhookBody = {
    event: event.kind,
    delivery_id: deliveryId,
    created_at: DateTime.formatIso(event.createdAt),
    project: { id: project.id, name: project.name },
    data: event.data
  }
  return { event: event.kind, deliveryId, body: JSON.stringify(body) }
}

/**
 * The headers of one attempt, signed at `timestamp` (integer seconds). Each attempt is signed
 * afresh: a retry 90 minutes later with the first attempt's timestamp would be refused as stale.
 */
export const webhookHeaders = (
  request: WebhookRequest,
  secrets: ReadonlyArray<string>,
  timestamp: number
): Record<WebhookHeader | "content-type", string> => ({
  "content-type": "application/json",
  [WebhookHeader.event]: request.event,
  [WebhookHeader.delivery]: request.deliveryId,
  [WebhookHeader.timestamp]: String(timestamp),
  [WebhookHeader.signature]: signatureHeader(secrets, timestamp, request.body)
})
