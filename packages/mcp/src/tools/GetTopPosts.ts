import { defaultInsightsDays, defaultTopPostsLimit, TopPosts, topPosts, TopPostsInput, topPostsRequestOf } from "@herald/core"
import { Effect } from "effect"
import { refuse, tool } from "../Tool.js"

/** GET /top-posts. */
export const getTopPosts = tool({
  name: "get_top_posts",
  title: "Get the best-performing posts",
  description:
    "The window's posts ranked by one metric (engagement, views, likes, comments, shares, reach or saves; default " +
    `engagement), highest first. since_days 1 to 365 (default ${defaultInsightsDays}), limit 1 to 50 (default ` +
    `${defaultTopPostsLimit}), platform, format (feed, reel, story). Needs posts:read.`,
  input: TopPostsInput.annotations({ examples: [{ metric: "likes", since_days: 30, limit: 5 }] }),
  output: TopPosts,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) => Effect.catchAll(topPosts(principal, topPostsRequestOf(input)), refuse),
  text: (reply) => `${reply.data.length} post(s) ranked by ${reply.metric} over ${reply.since_days} days.`
})
