import { Context, type Effect } from "effect"
import type { Post } from "../Post.js"

/** Signed one-click links to a post's approval page. */
export class ApprovalLinks extends Context.Tag("@herald/core/ApprovalLinks")<ApprovalLinks, {
  readonly urlFor: (post: Post) => Effect.Effect<string>
}>() {}
