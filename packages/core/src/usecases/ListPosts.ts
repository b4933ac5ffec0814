import { Context, Effect, Schema } from "effect"
import { requireScope } from "../Authorization.js"
import { PostStatus } from "../Post.js"
import { PostView, toPostView } from "../PostView.js"
import type { Principal } from "../Principal.js"
import { ApprovalLinks } from "../ports/ApprovalLinks.js"
import { type PostRecord, PostStore } from "../ports/PostStore.js"
import { traced } from "../Tracing.js"

export interface PostFilter {
  /** null: every status. */
  readonly statuses: ReadonlyArray<PostStatus> | null
  readonly limit: number
}

/** GET /posts's limit when the caller names none. */
export const defaultPostListLimit = 50

/**
 * A post as GET /posts lists it and GET /posts/{id} answers it. "PostRow" is the published
 * document's schema name; the code calls it a view ("Row" in code is a storage table row), the
 * document keeps its name for its clients.
 */
export const PostRow = PostView.annotations({ identifier: "PostRow" })

/** GET /posts's reply. */
export const PostListReply = Schema.Struct({
  data: Schema.Array(PostRow),
  filter: Schema.Struct({
    status: Schema.NullOr(Schema.Array(PostStatus)),
    limit: Schema.Int
  }).annotations({ description: "The filter that actually applied (status null: every status)." })
})

/**
 * Rows are a function of the records and the links alone, and a store that caches its lists hands
 * out the very same array while nothing changed: such a list's rows are built (and its approval
 * links signed) once, and the same rows array comes back, for callers that keep its encoding.
 */
const built = new WeakMap<ReadonlyArray<PostRecord>, {
  readonly links: Context.Tag.Service<ApprovalLinks>
  readonly rows: ReadonlyArray<PostView>
}>()

/** One post as GET /posts lists it (GET /posts/{id} answers the same row): a held post carries its approval link. */
export const rowOf = (record: PostRecord, links: Context.Tag.Service<ApprovalLinks>) =>
  record.post.status === "pending_approval"
    ? links.urlFor(record.post).pipe(Effect.map((url) => toPostView(record, url)))
    : Effect.succeed(toPostView(record, null))

const rowsOf = (records: ReadonlyArray<PostRecord>, links: Context.Tag.Service<ApprovalLinks>) => {
  const known = built.get(records)
  if (known !== undefined && known.links === links) return Effect.succeed(known.rows)
  return Effect.forEach(records, (record) => rowOf(record, links)).pipe(
    Effect.tap((rows) => Effect.sync(() => built.set(records, { links, rows })))
  )
}

/**
 * GET /posts: newest first, with the filter that actually applied. A cached list is the common
 * case, so this is a short chain (both services read in one step) rather than a generator.
 */
export const listPosts = traced("listPosts")((principal: Principal, filter: PostFilter) =>
  Effect.zipRight(
    requireScope(principal, "posts:read"),
    Effect.contextWithEffect((context: Context.Context<PostStore | ApprovalLinks>) =>
      Effect.flatMap(
        Context.get(context, PostStore).list(principal.projectId, filter),
        (records) => rowsOf(records, Context.get(context, ApprovalLinks))
      )
    )
  ).pipe(Effect.map((rows) => ({ data: rows, filter: { status: filter.statuses, limit: filter.limit } })))
)
