import { Schema } from "effect"
import { EventId, ProjectId } from "./Ids.js"

export const EventKind = Schema.Literal(
  "post.published",
  "post.failed",
  "post.approved",
  "post.rejected",
  "account.needs_reconnect"
)
export type EventKind = typeof EventKind.Type

/** A notable fact, written to the outbox in the same transaction as the change that caused it. */
export class OutboxEvent extends Schema.Class<OutboxEvent>("OutboxEvent")({
  id: EventId,
  projectId: ProjectId,
  kind: EventKind,
  createdAt: Schema.DateTimeUtc,
  /** The webhook body's `data`, already in wire form (snake_case JSON). */
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}) {}
