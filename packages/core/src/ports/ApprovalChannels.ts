import { Context, Data, type DateTime, type Effect, type Option, type Redacted } from "effect"
import type { ApprovalChannel, ApprovalChannelNotFound, ChannelRecipient } from "../ApprovalChannel.js"
import type { ApprovalChannelId, ApprovalMessageId, PostId, ProjectId } from "../Ids.js"
import type { ClaimRequest } from "./DeliveryQueue.js"

/** One held post's message to one channel, claimed for sending. */
export interface ClaimedApprovalMessage {
  readonly id: ApprovalMessageId
  readonly projectId: ProjectId
  readonly postId: PostId
  /** The post's version when it was queued: which hold it announces (a post may be held again). */
  readonly postVersion: number
  readonly channel: ApprovalChannel
  /** Where to send: the e-mail address, or the chat URL (unsealed for the sender only). */
  readonly address: Redacted.Redacted<string>
  /** Attempts already made before this one. */
  readonly attempts: number
}

/**
 * How a send ended. Skipped: the post was no longer held when its turn came (decided, edited,
 * deleted): nothing is sent for it.
 */
export type ApprovalMessageOutcome = Data.TaggedEnum<{
  Sent: { readonly at: DateTime.Utc }
  Skipped: { readonly at: DateTime.Utc }
  Retry: { readonly at: DateTime.Utc; readonly dueAt: DateTime.Utc; readonly error: string }
  GaveUp: { readonly at: DateTime.Utc; readonly error: string }
}>
export const ApprovalMessageOutcome = Data.taggedEnum<ApprovalMessageOutcome>()

/**
 * A project's approval channels and the messages owed to them. The held post is the durable
 * record: `fanOut` derives from the posts held now the messages not yet queued (one per hold and
 * channel that existed when the hold began), so a crash between a hold and its message loses
 * nothing. A post held again under the same id (at a new version) is owed its messages again.
 */
export class ApprovalChannels extends Context.Tag("@herald/core/ApprovalChannels")<ApprovalChannels, {
  readonly add: (channel: ApprovalChannel, address: Redacted.Redacted<string>) => Effect.Effect<void>
  readonly list: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<ApprovalChannel>>
  readonly remove: (projectId: ProjectId, id: ApprovalChannelId) => Effect.Effect<void, ApprovalChannelNotFound>
  /** Queues a message for every held, current post (at its version) and channel of its project lacking one; how many. */
  readonly fanOut: (now: DateTime.Utc) => Effect.Effect<number>
  readonly claimDue: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<ClaimedApprovalMessage>>
  /** Records the outcome and releases the lease; ignored when the worker no longer holds it. */
  readonly complete: (id: ApprovalMessageId, worker: string, outcome: ApprovalMessageOutcome) => Effect.Effect<void>
  /** Who a message went to (kept on the message, so a removed channel's links still name it), for the decision made through its link. */
  readonly recipientOf: (projectId: ProjectId, id: ApprovalMessageId) => Effect.Effect<Option.Option<ChannelRecipient>>
}>() {}
