import { Effect } from "effect"
import { metricsPointOf, type PostMetricsHistoryReply, type PostMetricsReply } from "../Analytics.js"
import { requireScope } from "../Authorization.js"
import type { PostId } from "../Ids.js"
import { loadPost } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import { MetricsStore } from "../ports/MetricsStore.js"
import { traced } from "../Tracing.js"

/** GET /metrics: the latest numbers of each delivery of the post synced so far. */
export const metricsOfPost = traced("metricsOfPost")(function*(principal: Principal, postId: PostId) {
  yield* requireScope(principal, "posts:read")
  yield* loadPost(principal.projectId, postId)
  const data = yield* MetricsStore.pipe(Effect.flatMap((store) => store.ofPost(principal.projectId, postId)))
  return { post_id: postId, data } satisfies PostMetricsReply
})

/**
 * GET /metrics/history: each synced delivery of the post with its numbers over time (a point per
 * sync that changed them), for a chart of one post.
 */
export const metricsHistoryOfPost = traced("metricsHistoryOfPost")(function*(principal: Principal, postId: PostId) {
  yield* requireScope(principal, "posts:read")
  yield* loadPost(principal.projectId, postId)
  const store = yield* MetricsStore
  const rows = yield* store.ofPost(principal.projectId, postId)
  const data = yield* Effect.forEach(rows, (row) =>
    Effect.map(store.history(row.delivery_id), (snapshots) => ({
      delivery_id: row.delivery_id,
      account_id: row.account_id,
      platform: row.platform,
      username: row.username,
      points: snapshots.map(metricsPointOf),
      synced_at: row.synced_at
    })))
  return { post_id: postId, data } satisfies PostMetricsHistoryReply
})
