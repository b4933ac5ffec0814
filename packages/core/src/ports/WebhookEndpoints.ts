import { Context, type Effect, type Redacted, Schema } from "effect"
import { EventKind } from "../Event.js"
import { ProjectId, WebhookEndpointId } from "../Ids.js"

/** A subscriber URL. Its signing secret is kept encrypted and only handed to the sender. */
export class WebhookEndpoint extends Schema.Class<WebhookEndpoint>("WebhookEndpoint")({
  id: WebhookEndpointId,
  projectId: ProjectId,
  url: Schema.String,
  /** The event kinds it subscribed to; a new kind never starts arriving on its own. */
  kinds: Schema.Array(EventKind),
  enabled: Schema.Boolean,
  /** Events given up on in a row; sending stops at the contract's threshold. */
  consecutiveFailures: Schema.Int,
  /** Why sending stopped or the last event was given up on, shown on the endpoint. */
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.DateTimeUtc
}) {}

export class WebhookEndpointNotFound extends Schema.TaggedError<WebhookEndpointNotFound>()("WebhookEndpointNotFound", {
  endpointId: Schema.String
}) {
  override get message(): string {
    return `webhook endpoint ${this.endpointId} not found in this project`
  }
}

export class WebhookEndpoints extends Context.Tag("@herald/core/WebhookEndpoints")<WebhookEndpoints, {
  readonly create: (endpoint: WebhookEndpoint, secret: Redacted.Redacted<string>) => Effect.Effect<void>
  readonly list: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
  /** Turning an endpoint back on clears its failure streak. */
  readonly setEnabled: (
    projectId: ProjectId,
    id: WebhookEndpointId,
    enabled: boolean
  ) => Effect.Effect<void, WebhookEndpointNotFound>
  /** Replaces the subscribed kinds; events already queued for the endpoint still go out. */
  readonly setKinds: (
    projectId: ProjectId,
    id: WebhookEndpointId,
    kinds: ReadonlyArray<EventKind>
  ) => Effect.Effect<void, WebhookEndpointNotFound>
  /** The URL and signing secret, for a test event sent on the operator's request. */
  readonly signingTarget: (
    projectId: ProjectId,
    id: WebhookEndpointId
  ) => Effect.Effect<{ readonly url: string; readonly secret: Redacted.Redacted<string> }, WebhookEndpointNotFound>
  readonly remove: (projectId: ProjectId, id: WebhookEndpointId) => Effect.Effect<void, WebhookEndpointNotFound>
}>() {}
