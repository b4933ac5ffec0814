import { DateTime, Schema } from "effect"
import { Timestamp } from "./Timestamp.js"
import { ChannelRecipient } from "./ApprovalChannel.js"
import type { Takedown } from "./Delivery.js"
import type { Actor, Post } from "./Post.js"
import { ActorKind, Surface } from "./Principal.js"

/**
 * A key as it acted on a post: its id, its name then, agent or human, and the surface the request
 * came through (rest, mcp, sdk). key_name and surface are null for what was recorded before
 * Herald kept them (docs/provenance.md).
 */
export const ActorView = Schema.Struct({
  key_id: Schema.UUID,
  key_name: Schema.NullOr(Schema.String),
  kind: ActorKind,
  surface: Schema.NullOr(Surface)
}).annotations({ identifier: "Actor" })
export type ActorView = typeof ActorView.Type

/**
 * Who did what to a post: the same object on GET /posts rows, GET /post-results, webhook payloads
 * and the MCP tools that answer them, so "which agent wrote this?" has one answer everywhere.
 */
export const Provenance = Schema.Struct({
  created_by: ActorView.annotations({ description: "The key that created the post's first version (an edit keeps it)." }),
  edited_by: Schema.NullOr(Schema.Struct({ ...ActorView.fields, at: Timestamp })).annotations({
    description: "The key whose edit made this version (PATCH makes a new post that supersedes the old); null for a first version."
  }),
  decided_by: Schema.NullOr(Schema.Struct({
    outcome: Schema.Literal("approved", "rejected"),
    via: Schema.Literal("api_key", "approval_link").annotations({
      description: "api_key: a human key decided (key_id says which); approval_link: someone holding the signed approval link (key_id null)."
    }),
    key_id: Schema.NullOr(Schema.UUID),
    key_name: Schema.NullOr(Schema.String),
    surface: Schema.NullOr(Surface),
    channel: Schema.NullOr(ChannelRecipient).annotations({
      description: "When the approval link came in an approval channel message: the channel (email, chat) and its recipient " +
        "(the address, or the chat channel's label); null otherwise."
    }),
    at: Timestamp
  })).annotations({ description: "The person's decision on a held post; null while none was made." })
}).annotations({ identifier: "Provenance" })
export type Provenance = typeof Provenance.Type

export const toActorView = (actor: Actor): ActorView => ({
  key_id: actor.keyId,
  key_name: actor.keyName,
  kind: actor.kind,
  surface: actor.surface
})

export const provenanceOf = (post: Post): Provenance => ({
  created_by: toActorView(post.origin),
  edited_by: post.supersedes === null ? null : { ...toActorView(post.author), at: DateTime.formatIso(post.createdAt) },
  decided_by: post.decision === null
    ? null
    : {
      outcome: post.decision.outcome,
      via: post.decision.via,
      key_id: post.decision.by,
      key_name: post.decision.byName,
      surface: post.decision.surface,
      channel: post.decision.channel,
      at: DateTime.formatIso(post.decision.at)
    }
})

/** The key that took a delivery down; kind null on takedowns recorded before Herald kept it. */
export const TakedownActor = Schema.Struct({
  key_id: Schema.UUID,
  key_name: Schema.NullOr(Schema.String),
  kind: Schema.NullOr(ActorKind),
  surface: Schema.NullOr(Surface)
}).annotations({ identifier: "TakedownActor" })

export const takedownActor = (takedown: Takedown): typeof TakedownActor.Type => ({
  key_id: takedown.by,
  key_name: takedown.byName,
  kind: takedown.kind,
  surface: takedown.surface
})
