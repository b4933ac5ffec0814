import { DateTime, Schema } from "effect"
import { Timestamp } from "./Timestamp.js"
import { type Delivery, DeliveryStatus } from "./Delivery.js"
import { DeliveryErrorCategory, toWireError, WireDeliveryError } from "./DeliveryError.js"
import { Platform } from "./Platform.js"
import { PostStatus } from "./Post.js"
import { Provenance, provenanceOf, TakedownActor, takedownActor } from "./Provenance.js"
import type { PostRecord } from "./ports/PostStore.js"

/** One row of GET /post-results: a delivery to one account. */
export const ReceiptEntry = Schema.Struct({
  id: Schema.UUID,
  platform: Platform,
  account_id: Schema.UUID,
  username: Schema.String,
  status: DeliveryStatus,
  retries: Schema.Int,
  url: Schema.NullOr(Schema.String),
  platform_post_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(WireDeliveryError),
  /** The category of `error` itself (its `category` groups these more coarsely). */
  error_category: Schema.NullOr(DeliveryErrorCategory),
  note: Schema.NullOr(Schema.String),
  note_kind: Schema.NullOr(Schema.Literal("info")),
  next_attempt_at: Schema.NullOr(Timestamp),
  attempts: Schema.Array(Schema.Struct({
    number: Schema.Int,
    started_at: Timestamp,
    finished_at: Schema.NullOr(Timestamp),
    outcome: Schema.NullOr(Schema.Literal("success", "failed", "unknown", "reconciled")),
    error: Schema.NullOr(WireDeliveryError),
    error_category: Schema.NullOr(DeliveryErrorCategory)
  })),
  taken_down_at: Schema.NullOr(Timestamp),
  taken_down_by: Schema.NullOr(Schema.String),
  taken_down_by_key: Schema.NullOr(TakedownActor).annotations({ description: "The key that took it down (taken_down_by is its id)." })
})
export type ReceiptEntry = typeof ReceiptEntry.Type

export const Receipt = Schema.Struct({
  post_id: Schema.UUID,
  post_status: PostStatus,
  approval_url: Schema.String,
  provenance: Provenance,
  data: Schema.Array(ReceiptEntry)
})
export type Receipt = typeof Receipt.Type

const iso = (instant: DateTime.Utc | null) => (instant === null ? null : DateTime.formatIso(instant))

const waiting = (delivery: Delivery) => delivery.status === "queued" || delivery.status === "unknown"

export const toReceiptEntry = (delivery: Delivery): ReceiptEntry => ({
  id: delivery.id,
  platform: delivery.platform,
  account_id: delivery.accountId,
  username: delivery.username,
  status: delivery.status,
  retries: delivery.retries,
  url: delivery.url,
  platform_post_id: delivery.platformPostId,
  error: delivery.error === null ? null : toWireError(delivery.error),
  error_category: delivery.error?.category ?? null,
  note: delivery.note?.text ?? null,
  note_kind: delivery.note?.kind ?? null,
  next_attempt_at: waiting(delivery) ? iso(delivery.dueAt) : null,
  attempts: delivery.attempts.map((attempt) => ({
    number: attempt.number,
    started_at: DateTime.formatIso(attempt.startedAt),
    finished_at: iso(attempt.finishedAt),
    outcome: attempt.outcome,
    error: attempt.error === null ? null : toWireError(attempt.error),
    error_category: attempt.error?.category ?? null
  })),
  // A takedown still under way is not shown: the post is live until the platform confirms.
  taken_down_at: delivery.status === "taken_down" ? iso(delivery.takedown?.at ?? null) : null,
  taken_down_by: delivery.status === "taken_down" ? delivery.takedown?.by ?? null : null,
  taken_down_by_key: delivery.status === "taken_down" && delivery.takedown !== null ? takedownActor(delivery.takedown) : null
})

export const toReceipt = ({ deliveries, post }: PostRecord, approvalUrl: string): Receipt => ({
  post_id: post.id,
  post_status: post.status,
  approval_url: approvalUrl,
  provenance: provenanceOf(post),
  data: deliveries.map(toReceiptEntry)
})
