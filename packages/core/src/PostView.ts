import { DateTime, Schema } from "effect"
import { Timestamp } from "./Timestamp.js"
import { PostStatus, Publishes } from "./Post.js"
import type { Post } from "./Post.js"
import { PlatformConfigurations } from "./platforms/Registry.js"
import type { PostRecord } from "./ports/PostStore.js"
import { ActorKind } from "./Principal.js"
import { Platform } from "./Platform.js"
import { DeliveryStatus } from "./Delivery.js"
import { Provenance, provenanceOf } from "./Provenance.js"

/**
 * A post as GET /posts lists it. The contract fixes status, approval_url, rejectionReason,
 * scheduledAt and publishes (camelCase kept where it says so); the rest is Herald's, in snake_case.
 */
export const PostView = Schema.Struct({
  id: Schema.UUID,
  status: PostStatus,
  publishes: Publishes,
  scheduledAt: Schema.NullOr(Schema.String),
  approval_url: Schema.optional(Schema.String),
  rejectionReason: Schema.optional(Schema.NullOr(Schema.String)),
  caption: Schema.NullOr(Schema.String),
  signature: Schema.String,
  targets: Schema.Array(Schema.Struct({
    account_id: Schema.UUID,
    platform: Platform,
    username: Schema.String,
    delivery_id: Schema.UUID,
    delivery_status: DeliveryStatus
  })),
  media_ids: Schema.Array(Schema.UUID),
  platform_configurations: PlatformConfigurations,
  created_by: ActorKind.annotations({ description: "Whether an agent or a human key wrote this version (provenance.created_by names the key)." }),
  provenance: Provenance,
  supersedes: Schema.NullOr(Schema.UUID),
  idempotency_key: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type PostView = typeof PostView.Type

/** What a post is waiting for (the contract's `publishes` table). */
export const publishesOf = (post: Post): Publishes => {
  switch (post.status) {
    case "pending_approval":
      return post.scheduledAt === null ? "on_approval" : "at_time"
    case "scheduled":
      return "at_time"
    case "processing":
      return "now"
    case "draft":
    case "rejected":
      return null
    case "posted":
    case "partial":
    case "failed":
      return post.scheduledAt === null ? "now" : "at_time"
  }
}

const iso = (instant: DateTime.Utc | null) => (instant === null ? null : DateTime.formatIso(instant))

export const toPostView = ({ deliveries, post }: PostRecord, approvalUrl: string | null): PostView => ({
  id: post.id,
  status: post.status,
  publishes: publishesOf(post),
  scheduledAt: post.status === "pending_approval" && post.scheduledAt === null ? null : iso(post.scheduledAt),
  ...(post.status === "pending_approval" && approvalUrl !== null ? { approval_url: approvalUrl } : {}),
  ...(post.status === "rejected" ? { rejectionReason: post.decision?.reason ?? null } : {}),
  caption: post.caption,
  signature: post.signature,
  targets: deliveries.map((delivery) => ({
    account_id: delivery.accountId,
    platform: delivery.platform,
    username: delivery.username,
    delivery_id: delivery.id,
    delivery_status: delivery.status
  })),
  media_ids: post.mediaIds,
  platform_configurations: post.platformConfigurations,
  created_by: post.author.kind,
  provenance: provenanceOf(post),
  supersedes: post.supersedes,
  idempotency_key: post.idempotencyKey,
  created_at: DateTime.formatIso(post.createdAt),
  updated_at: DateTime.formatIso(post.updatedAt)
})
