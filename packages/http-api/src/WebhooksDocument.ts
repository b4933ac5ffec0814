import {
  AccountStatus,
  ApprovalChannelKind,
  ActorKind,
  ConnectionIssueKind,
  DeliveryErrorCategory,
  DeliveryStatus,
  type EventKind,
  FailureCategory,
  platforms,
  PostStatus,
  Surface
} from "@herald/core"

/**
 * The OpenAPI 3.1 `webhooks` section: what Herald POSTs to a subscribed endpoint for each event
 * kind (docs/webhooks.md explains the signature and the sending rules). The `data` shapes mirror
 * core's EventData builders.
 */
type Json = Record<string, unknown>

const text = (description: string): Json => ({ type: "string", description })
const nullable = (schema: Json): Json => ({ anyOf: [schema, { type: "null" }] })
const oneOf = (values: ReadonlyArray<string>, description?: string): Json => ({
  type: "string",
  enum: [...values],
  ...(description === undefined ? {} : { description })
})
const object = (properties: Json): Json => ({
  type: "object",
  required: Object.keys(properties),
  properties
})

const surface = nullable(oneOf(Surface.literals, "How the request came: rest, mcp or sdk; null when recorded before Herald kept it."))
const actor = {
  key_id: { type: "string", format: "uuid" },
  key_name: nullable(text("The key's name then; null when recorded before Herald kept it.")),
  kind: oneOf(ActorKind.literals),
  surface
}

/** core's Provenance (docs/provenance.md): the same object as on GET /posts rows and GET /post-results. */
const provenance = object({
  created_by: object(actor),
  edited_by: nullable(object({ ...actor, at: { type: "string", format: "date-time" } })),
  decided_by: nullable(object({
    outcome: oneOf(["approved", "rejected"]),
    via: oneOf(["api_key", "approval_link"], "A human key, or the signed approval link (key_id null)."),
    key_id: nullable({ type: "string", format: "uuid" }),
    key_name: nullable({ type: "string" }),
    surface,
    channel: nullable(object({
      kind: oneOf(ApprovalChannelKind.literals),
      recipient: text("The e-mail address, or the chat channel's label, the approval link was sent to.")
    })),
    at: { type: "string", format: "date-time" }
  }))
})

const postSummary = object({
  id: { type: "string", format: "uuid" },
  caption: nullable({ type: "string" }),
  status: oneOf(PostStatus.literals),
  delivered: { type: "integer", description: "Deliveries that went out (success or taken_down)." },
  targets: { type: "integer", description: "Deliveries in all; delivered < targets means a partial post." },
  provenance
})

const settled = object({
  post: postSummary,
  deliveries: {
    type: "array",
    items: object({
      platform: oneOf(platforms),
      username: { type: "string" },
      status: oneOf(DeliveryStatus.literals),
      url: nullable({ type: "string", description: "The published post on the platform." }),
      error: nullable(object({ category: oneOf(FailureCategory.literals), code: { type: "string" }, message: { type: "string" } })),
      error_category: nullable(oneOf(DeliveryErrorCategory.literals, "The category of error itself (docs/api.md); error.category groups these more coarsely."))
    })
  }
})

const decided = object({
  post: postSummary,
  decision: nullable(object({
    outcome: oneOf(["approved", "rejected"]),
    via: oneOf(["api_key", "approval_link"], "A human key, or the signed approval link."),
    by_key_id: nullable({ type: "string", format: "uuid" }),
    by_key_name: nullable({ type: "string" }),
    surface,
    at: { type: "string", format: "date-time" },
    reason: nullable(text("A rejection's reason."))
  }))
})

const needsReconnect = object({
  account: object({
    id: { type: "string", format: "uuid" },
    platform: oneOf(platforms),
    username: { type: "string" },
    status: oneOf(AccountStatus.literals)
  }),
  reason: text("Why the platform refused the account's credentials (the same text as detail)."),
  kind: oneOf(ConnectionIssueKind.literals, "The connection issue this opens (docs/connection-health.md)."),
  detail: text("The issue's detail in plain words."),
  since: { type: "string", format: "date-time", description: "When the issue was opened." }
})

const kinds: ReadonlyArray<readonly [EventKind, string, Json]> = [
  ["post.published", "A post settled with at least one delivery out (status posted or partial).", settled],
  ["post.failed", "A post settled with no delivery out (status failed).", settled],
  ["post.approved", "A person approved a post waiting for approval.", decided],
  ["post.rejected", "A person rejected a post waiting for approval.", decided],
  ["account.needs_reconnect", "A platform refused an account's credentials; it must be reconnected.", needsReconnect]
]

const header = (description: string, schema: Json = { type: "string" }): Json => ({ required: true, description, schema })

const headers: Json = {
  "x-service-event": header("The event kind, the same as the body's event."),
  "x-service-delivery": header(
    "The delivery id: one per (event, endpoint), the same on every retry; equals the body's delivery_id.",
    { type: "string", format: "uuid" }
  ),
  "x-service-timestamp": header("When this attempt was signed, in integer seconds since the epoch.", {
    type: "string",
    pattern: "^[0-9]+$"
  }),
  "x-service-signature": header(
    "One or more space-separated v1=<hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the endpoint's secret>."
  )
}

export const webhooksSection: Json = Object.fromEntries(kinds.map(([kind, description, data]) => [kind, {
  post: {
    operationId: `webhook_${kind.replace(".", "_")}`,
    summary: kind,
    description: `${description} Verify the signature over the raw body before parsing; any 2xx accepts, ` +
      "anything else (3xx included) is retried 5 times over about 2.5 hours.",
    parameters: Object.entries(headers).map(([name, spec]) => ({ name, in: "header", ...(spec as Json) })),
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: object({
            event: { type: "string", const: kind },
            delivery_id: { type: "string", format: "uuid" },
            created_at: { type: "string", format: "date-time", description: "When the event happened (UTC, milliseconds)." },
            project: object({ id: { type: "string", format: "uuid" }, name: { type: "string" } }),
            data
          })
        }
      }
    },
    responses: {
      "200": { description: "Any 2xx accepts the delivery; the body is ignored (its first 512 bytes are logged)." }
    }
  }
}]))
