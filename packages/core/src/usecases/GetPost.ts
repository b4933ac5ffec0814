import { requireScope } from "../Authorization.js"
import type { PostId } from "../Ids.js"
import { loadPost } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import { ApprovalLinks } from "../ports/ApprovalLinks.js"
import { traced } from "../Tracing.js"
import { rowOf } from "./ListPosts.js"

/**
 * GET /posts/{id}: one post, the very row GET /posts lists for it. An edited (superseded) post
 * answers PostSuperseded naming its successor, as PATCH, DELETE and approve do: the row has no
 * field for a successor, and a reader that kept an old id learns where the post went.
 */
export const getPost = traced("getPost")(function*(principal: Principal, id: PostId) {
  yield* requireScope(principal, "posts:read")
  const record = yield* loadPost(principal.projectId, id)
  return yield* rowOf(record, yield* ApprovalLinks)
})
