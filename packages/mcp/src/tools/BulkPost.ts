import { BulkBody, bulkCreate, BulkResult } from "@herald/core"
import { Effect } from "effect"
import { refuse, tool } from "../Tool.js"

/** POST /posts/bulk (its JSON form). */
export const bulkPost = tool({
  name: "bulk_post",
  title: "Create up to 100 posts",
  description:
    "Creates 1 to 100 posts in one call. Each row runs the whole create_post path on its own (guardrails, daily cap, copilot " +
    "hold) and gets its own result (code created, repeated, or an error code with message and violations); one row failing " +
    "never stops the others, and rows past the daily cap report daily_cap_reached. accounts takes refs from list_accounts; " +
    "media_urls are public https URLs fetched per row. Needs posts:write.",
  input: BulkBody.annotations({
    examples: [{ rows: [{ caption: "Doors open at 9.", accounts: ["x:herald"], scheduled_at: "2026-12-01T09:00:00Z", idempotency_key: "doors-1" }] }]
  }),
  output: BulkResult,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  storedTextPerItem: true,
  run: (principal, body) => Effect.catchAll(bulkCreate(principal, body.rows), refuse),
  text: (reply) => `${reply.created} row(s) have a post, ${reply.failed} failed.`
})
