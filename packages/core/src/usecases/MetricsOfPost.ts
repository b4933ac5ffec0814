import { Effect } from "effect"
import type { PostMetricsReply } from "../Analytics.js"
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
