import { postResults, Receipt } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"
import { PostIdInput } from "./PostIdInput.js"

/** GET /post-results. */
export const getDeliveryReceipt = tool({
  name: "get_delivery_receipt",
  title: "Get a post's delivery receipt",
  description:
    "How a post went out: the post's status and one row per targeted account with its delivery status, retries, the live " +
    "URL once published and the error detail when it failed; approval_url is the signed page of the post. " +
    "post_not_found when the id is not a post of this project. Needs posts:read.",
  input: Schema.Struct({
    post_id: PostIdInput
  }),
  output: Receipt,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) => Effect.catchAll(postResults(principal, input.post_id), refuse),
  text: (receipt) =>
    `Post ${receipt.post_id}: ${receipt.post_status}. ` +
    receipt.data.map((row) => `${row.platform}:${row.username} ${row.status}`).join(", ")
})
