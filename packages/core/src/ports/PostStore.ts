import { Context, Data, type DateTime, type Effect, type Option } from "effect"
import type { Delivery } from "../Delivery.js"
import type { DailyCapReached, IdempotencyKeyReused, StaleWrite } from "../Errors.js"
import type { OutboxEvent } from "../Event.js"
import type { ApiKeyId, DeliveryId, PostId, ProjectId } from "../Ids.js"
import type { Post, PostStatus } from "../Post.js"

/** A post with its deliveries: the unit every change is committed on. */
export interface PostRecord {
  readonly post: Post
  readonly deliveries: ReadonlyArray<Delivery>
}

/** The caller's idempotency_key and a canonical form of the request it came with. */
export interface IdempotencyClaim {
  readonly key: string
  readonly fingerprint: string
}

/** The key's daily allowance, enforced atomically with the write. */
export interface DailyCapClaim {
  readonly keyId: ApiKeyId
  readonly cap: number
  readonly since: DateTime.Utc
  readonly resetAt: DateTime.Utc
}

export interface NewPost {
  readonly record: PostRecord
  readonly events: ReadonlyArray<OutboxEvent>
  readonly idempotency: IdempotencyClaim | null
  readonly dailyCap: DailyCapClaim | null
}

export type CreateOutcome = Data.TaggedEnum<{
  Created: { readonly record: PostRecord }
  /** The idempotency key was already used with the same request: the post the first create made. */
  Repeated: { readonly record: PostRecord }
}>
export const CreateOutcome = Data.taggedEnum<CreateOutcome>()

/**
 * A change to one post, applied in one transaction only if the post is still at expectedVersion.
 * - Update: the record's new state (post version = expectedVersion + 1) and its deliveries.
 * - Supersede: an edit; the previous post is marked superseded and the successor written.
 * - Remove: the post and its deliveries are deleted.
 */
export type PostChange = Data.TaggedEnum<{
  Update: {
    readonly expectedVersion: number
    readonly record: PostRecord
    readonly events: ReadonlyArray<OutboxEvent>
  }
  Supersede: {
    readonly expectedVersion: number
    readonly previous: Post
    readonly successor: NewPost
  }
  Remove: { readonly expectedVersion: number; readonly postId: PostId }
}>
export const PostChange = Data.taggedEnum<PostChange>()

/** The one kind of change that `commitAll` writes in batches. */
export type PostUpdate = Data.TaggedEnum.Value<PostChange, "Update">

/** A post by its id, within its project. */
export interface PostKey {
  readonly projectId: ProjectId
  readonly postId: PostId
}

export interface PostQuery {
  readonly statuses: ReadonlyArray<PostStatus> | null
  readonly limit: number
}

export class PostStore extends Context.Tag("@herald/core/PostStore")<PostStore, {
  /** Writes the post, its deliveries, its events and its idempotency record in one transaction. */
  readonly create: (input: NewPost) => Effect.Effect<CreateOutcome, IdempotencyKeyReused | DailyCapReached>
  /**
   * The post an earlier create with this idempotency key wrote, with that request's fingerprint.
   * Checked before validation so a resend is answered even when its body would no longer validate
   * (a scheduled_at that has since passed); `create` still settles concurrent first sends.
   */
  readonly findIdempotent: (
    projectId: ProjectId,
    key: string
  ) => Effect.Effect<Option.Option<{ readonly record: PostRecord; readonly fingerprint: string }>>
  readonly find: (projectId: ProjectId, id: PostId) => Effect.Effect<Option.Option<PostRecord>>
  readonly findByDelivery: (projectId: ProjectId, id: DeliveryId) => Effect.Effect<Option.Option<PostRecord>>
  /** Newest first; superseded posts are not listed. */
  readonly list: (projectId: ProjectId, query: PostQuery) => Effect.Effect<ReadonlyArray<PostRecord>>
  /** Every post of `keys` that exists (in no particular order; a missing one is left out). */
  readonly findMany: (keys: ReadonlyArray<PostKey>) => Effect.Effect<ReadonlyArray<PostRecord>>
  /**
   * A change applied only if the post is still at its expected version (StaleWrite otherwise).
   * A delivery written in a settled status (success, failed, taken_down) holds no lease after it:
   * nothing is left to do with it, so the commit that settles it also releases it.
   */
  readonly commit: (change: PostChange) => Effect.Effect<void, StaleWrite>
  /**
   * Several updates (at most one per post) in one atomic step, each checked against its own
   * expected version as `commit` does: the stale ones are left out and returned, all the others
   * are written, with their events, together.
   */
  readonly commitAll: (changes: ReadonlyArray<PostUpdate>) => Effect.Effect<ReadonlyArray<StaleWrite>>
  /** Posts this key created since the given instant, deleted ones included (the daily cap's count). */
  readonly createdSince: (keyId: ApiKeyId, since: DateTime.Utc) => Effect.Effect<number>
}>() {}
