import { defaultPostListLimit, listPosts, PostListReply, PostStatus } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"

/** GET /posts. */
export const listPostsTool = tool({
  name: "list_posts",
  title: "List posts",
  description:
    "The project's posts, newest first, as GET /posts lists them: each row has status, scheduledAt, publishes " +
    "(at_time, on_approval, now, or null for a draft or rejected post), approval_url on a held post and rejectionReason on " +
    "a rejected one. Needs posts:read.",
  input: Schema.Struct({
    // Descriptions go on the fields, not their types: a type's description becomes its refusal message.
    status: Schema.optional(Schema.Array(PostStatus).pipe(Schema.minItems(1)).annotations({
      examples: [["pending_approval", "scheduled"]]
    })).annotations({ description: "Only posts in these statuses; omit for every status." }),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 100)).annotations({
      examples: [20]
    })).annotations({ description: `How many rows, 1 to 100 (default ${defaultPostListLimit}).` })
  }),
  output: PostListReply,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) =>
    Effect.catchAll(listPosts(principal, { statuses: input.status ?? null, limit: input.limit ?? defaultPostListLimit }), refuse),
  // listPosts hands out the same rows array while the list is unchanged (GET /posts keeps its reply so too).
  kept: (reply) => ({ owner: reply.data, parts: [reply.filter.status, reply.filter.limit] }),
  text: (reply) =>
    reply.data.length === 0
      ? "No posts."
      : reply.data.map((row) => `${row.id} ${row.status}`).join("\n")
})
