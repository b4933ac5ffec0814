import { bulkPost } from "./tools/BulkPost.js"
import { checkGuardrails } from "./tools/CheckGuardrails.js"
import { createPostTool } from "./tools/CreatePost.js"
import { getBestTimes } from "./tools/GetBestTimes.js"
import { getDeliveryReceipt } from "./tools/GetDeliveryReceipt.js"
import { getInsights } from "./tools/GetInsights.js"
import { getPostTool } from "./tools/GetPost.js"
import { getPostMetrics } from "./tools/GetPostMetrics.js"
import { getTopPosts } from "./tools/GetTopPosts.js"
import { listAccounts } from "./tools/ListAccounts.js"
import { listPostsTool } from "./tools/ListPosts.js"
import { uploadMediaTool } from "./tools/UploadMedia.js"

/** The contract's 11 tools, in its order, and get_post (GET /posts/{id}, beyond the contract) after list_posts. */
export const tools = [
  listAccounts,
  createPostTool,
  bulkPost,
  listPostsTool,
  getPostTool,
  getDeliveryReceipt,
  checkGuardrails,
  uploadMediaTool,
  getPostMetrics,
  getInsights,
  getTopPosts,
  getBestTimes
] as const
