import { Effect } from "effect"
import { requireScope } from "../Authorization.js"
import type { PostId } from "../Ids.js"
import { loadPost } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import { ApprovalLinks } from "../ports/ApprovalLinks.js"
import { toReceipt } from "../Receipt.js"
import { traced } from "../Tracing.js"

/** GET /post-results: one receipt row per targeted account. */
export const postResults = traced("postResults")(function*(principal: Principal, postId: PostId) {
  yield* requireScope(principal, "posts:read")
  const record = yield* loadPost(principal.projectId, postId)
  const url = yield* ApprovalLinks.pipe(Effect.flatMap((links) => links.urlFor(record.post)))
  return toReceipt(record, url)
})
