import { AccountListReply, listSocialAccounts } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"

/** GET /social-accounts. */
export const listAccounts = tool({
  name: "list_accounts",
  title: "List connected social accounts",
  description:
    "The social accounts this key's project can post to, with each one's ref (send it in create_post's social_accounts), " +
    "its status, limits (caption_chars_available already deducts the project signature; media_required: a text-only post is refused) " +
    "and capabilities (placements, first_comment, documents...). Call this first to learn what to post to. Needs posts:read.",
  input: Schema.Struct({}),
  output: AccountListReply,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal) => Effect.catchAll(listSocialAccounts(principal), refuse),
  text: (reply) =>
    reply.data.length === 0
      ? "No connected accounts."
      : `${reply.data.length} account(s): ${reply.data.map((account) => `${account.ref} (${account.status})`).join(", ")}`
})
