import { Context, DateTime, type Effect, Option, type Redacted, Schema } from "effect"
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

/**
 * What an endpoint signs with: its current secret and, while a rotation's overlap lasts, the one
 * it replaced, so receivers still holding the old secret keep verifying until `until`.
 */
export interface SigningSecrets {
  readonly current: Redacted.Redacted<string>
  readonly previous: Option.Option<{ readonly secret: Redacted.Redacted<string>; readonly until: DateTime.Utc }>
}

/** The secrets a request signed at `now` carries: the previous one (while its overlap lasts) and the current one. */
export const secretsInForce = (
  secrets: SigningSecrets,
  now: DateTime.Utc
): readonly [Redacted.Redacted<string>, ...Array<Redacted.Redacted<string>>] =>
  Option.match(Option.filter(secrets.previous, ({ until }) => DateTime.lessThan(now, until)), {
    onNone: () => [secrets.current],
    onSome: ({ secret }) => [secret, secrets.current]
  })

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
  /** The URL and signing secrets, for a test event sent on the operator's request. */
  readonly signingTarget: (
    projectId: ProjectId,
    id: WebhookEndpointId
  ) => Effect.Effect<{ readonly url: string; readonly secrets: SigningSecrets }, WebhookEndpointNotFound>
  /**
   * Makes `secret` the current one; the current one becomes the previous until `previousUntil`
   * (an earlier previous one is dropped). Both are sealed at rest.
   */
  readonly rotateSecret: (
    projectId: ProjectId,
    id: WebhookEndpointId,
    secret: Redacted.Redacted<string>,
    previousUntil: DateTime.Utc
  ) => Effect.Effect<void, WebhookEndpointNotFound>
  readonly remove: (projectId: ProjectId, id: WebhookEndpointId) => Effect.Effect<void, WebhookEndpointNotFound>
}>() {}
