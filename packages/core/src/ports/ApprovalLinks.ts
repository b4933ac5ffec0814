import { Context, type Effect } from "effect"
import type { ApprovalMessageId, PostId, ProjectId } from "../Ids.js"
import type { Post } from "../Post.js"

/** What an approval link lets its holder decide: one post of one project, at the version it was made for. */
export interface ApprovalGrant {
  readonly projectId: ProjectId
  readonly postId: PostId
  readonly version: number
  /** Set on a link sent through an approval channel: the message it came in, which names the channel and recipient. */
  readonly message?: ApprovalMessageId
}

/** Signed one-click links to a post's approval page. */
export class ApprovalLinks extends Context.Tag("@herald/core/ApprovalLinks")<ApprovalLinks, {
  readonly urlFor: (post: Post) => Effect.Effect<string>
  /** The link one approval channel message carries: its own token, so a decision through it names the channel. */
  readonly channelUrlFor: (post: Post, message: ApprovalMessageId) => Effect.Effect<string>
}>() {}
