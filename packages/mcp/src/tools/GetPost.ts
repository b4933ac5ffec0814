import { getPost, PostRow } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"
import { PostIdInput } from "./PostIdInput.js"

/** GET /posts/{id}: beyond the contract's tools, so an agent reads an older post without scanning list_posts. */
export const getPostTool = tool({
  name: "get_post",
  title: "Get one post",
  description:
    "One post, the row list_posts gives for it: status, caption, scheduledAt, publishes, targets, approval_url on a held " +
    "post and rejectionReason on a rejected one. post_superseded (naming the new id) when an edit replaced it; " +
    "post_not_found when the id is not a post of this project. Needs posts:read.",
  input: Schema.Struct({
    id: PostIdInput
  }),
  output: PostRow,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) => Effect.catchAll(getPost(principal, input.id), refuse),
  text: (row) => `Post ${row.id}: ${row.status}.`
})
