import { Effect } from "effect"
import { requireScope } from "../Authorization.js"
import type { PostStatus } from "../Post.js"
import { toPostRow } from "../PostRow.js"
import type { Principal } from "../Principal.js"
import { ApprovalLinks } from "../ports/ApprovalLinks.js"
import { PostStore } from "../ports/PostStore.js"

export interface PostFilter {
  /** null: every status. */
  readonly statuses: ReadonlyArray<PostStatus> | null
  readonly limit: number
}

/** GET /posts: newest first, with the filter that actually applied. */
export const listPosts = Effect.fn("listPosts")(function*(principal: Principal, filter: PostFilter) {
  yield* requireScope(principal, "posts:read")
  const records = yield* PostStore.pipe(Effect.flatMap((store) => store.list(principal.projectId, filter)))
  const links = yield* ApprovalLinks
  const rows = yield* Effect.forEach(records, (record) =>
    record.post.status === "pending_approval"
      ? links.urlFor(record.post).pipe(Effect.map((url) => toPostRow(record, url)))
      : Effect.succeed(toPostRow(record, null)))
  return { data: rows, filter: { status: filter.statuses, limit: filter.limit } }
})
