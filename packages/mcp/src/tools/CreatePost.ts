import { CreatedPostReply, createdPostReply, createPost, CreatePostBody } from "@herald/core"
import { Effect } from "effect"
import { refuse, tool } from "../Tool.js"

/** POST /posts. */
export const createPostTool = tool({
  name: "create_post",
  title: "Create a post",
  description:
    "Creates one post aimed at one or more connected accounts (refs from list_accounts), published now, at scheduled_at, " +
    "or kept as a draft. Guardrails check every text first: a block is an error with code guardrail_blocked and violations " +
    "to rewrite against. In copilot mode a post by an agent key is held: the result has status pending_approval, " +
    "approval_url (share it with a person) and a message explaining the hold; that is success, not an error. " +
    "Send idempotency_key to make a retry safe (the same key returns the first post with repeated true). " +
    "Every reference must resolve or nothing is created. Needs posts:write; counts toward the key's daily post cap " +
    "(code daily_cap_reached with retry_after).",
  input: CreatePostBody.annotations({
    examples: [{ caption: "We ship on Friday.", social_accounts: ["x:herald", "bluesky:herald.bsky.social"], idempotency_key: "launch-1" }]
  }),
  output: CreatedPostReply,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (principal, body) => createPost(principal, body).pipe(Effect.map(createdPostReply), Effect.catchAll(refuse)),
  text: (reply) => `${reply.repeated ? "Repeated" : "Created"} post ${reply.id}: ${reply.status}. ${reply.message}` +
    (reply.approval_url === undefined ? "" : ` Approval page: ${reply.approval_url}`)
})
