import { type PostRecord, PostStore } from "@herald/core"
import { Effect, Layer } from "effect"
import { ReadCache } from "./ChangeNotices.js"

/** Lists kept at most (each up to 100 posts): a few megabytes. */
const listCapacity = 256

/**
 * How long a list is served: the bound on how far another process's writes can be behind. Posts
 * raise no change notices: a notifying commit takes a lock every other one waits for, and the
 * dispatcher commits a few times per delivery.
 */
export const listMaxAge = 1_000

/**
 * GET /posts reads, kept per project and query for up to a second; what this process writes
 * through the store evicts the project's lists at once (a change whose outcome is unknown, a
 * defect mid-commit, evicts too), so a caller reads its own writes. A hit hands out the very array
 * the read returned, so what callers build from it can be kept by identity as well.
 */
export const PostListCache = Layer.effect(
  PostStore,
  Effect.map(PostStore, (store) => {
    const lists = new ReadCache<ReadonlyArray<PostRecord>>(() => true, listCapacity, listMaxAge)
    const evicting = (projectIds: ReadonlyArray<string> | "all") =>
      Effect.sync(() => {
        if (projectIds === "all") lists.evictAll()
        else for (const id of projectIds) lists.evict(id)
      })
    return PostStore.of({
      ...store,
      list: (projectId, query) => lists.through(projectId, `${query.statuses?.join(",") ?? "*"} ${query.limit}`, () => store.list(projectId, query)),
      create: (input) => Effect.ensuring(store.create(input), evicting([input.record.post.projectId])),
      commit: (change) =>
        Effect.ensuring(
          store.commit(change),
          // A removal names only the post; removals are rare, so every project's lists go.
          evicting(
            change._tag === "Update"
              ? [change.record.post.projectId]
              : change._tag === "Supersede"
              ? [change.previous.projectId]
              : "all"
          )
        ),
      commitAll: (changes) =>
        Effect.ensuring(store.commitAll(changes), evicting(changes.map((change) => change.record.post.projectId)))
    })
  })
)
