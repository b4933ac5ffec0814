import { Context, type Effect } from "effect"
import type { WebhookEndpointId } from "../Ids.js"
import type { Project } from "../Project.js"
import type { SigningSecrets } from "./WebhookEndpoints.js"

/** The kind a test event carries in its body and x-service-event header; never queued, never subscribed to. */
export const webhookTestKind = "webhook.test" as const

/** What a test event's single attempt came to, answered to the operator at once (not in the delivery log). */
export interface WebhookTestResult {
  readonly deliveryId: string
  /** null when no response came. */
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly responsePrefix: string
  /** Why the endpoint did not accept it; null when it answered 2xx. */
  readonly error: string | null
}

/** Sends one signed test event to an endpoint, through the same sender and guard as real events. */
export class WebhookTestEvents extends Context.Tag("@herald/core/WebhookTestEvents")<WebhookTestEvents, {
  readonly send: (
    target: { readonly endpointId: WebhookEndpointId; readonly url: string; readonly secrets: SigningSecrets },
    project: Pick<Project, "id" | "name">
  ) => Effect.Effect<WebhookTestResult>
}>() {}
