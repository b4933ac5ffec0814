import { Context, type Effect } from "effect"
import type { PostId, ProjectId } from "../Ids.js"
import type { Post } from "../Post.js"

/** What an approval link lets its holder decide: one post of one project, at the version it was made for. */
export interface ApprovalGrant {
  readonly projectId: ProjectId
  readonly postId: PostId
  readonly version: number
}

/** Signed one-click links to a post's approval page. */
export class ApprovalLinks extends Context.Tag("@herald/core/ApprovalLinks")<ApprovalLinks, {
  readonly urlFor: (post: Post) => Effect.Effect<string>
}>() {}
