import { DateTime, Effect } from "effect"
import { requireScope } from "../Authorization.js"
import type { PostId } from "../Ids.js"
import { LifecycleEvent } from "../Lifecycle.js"
import type { PostStatus } from "../Post.js"
import { deliveryState } from "../PostPlan.js"
import { loadPost } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import { PostChange, PostStore } from "../ports/PostStore.js"
import { loadProject } from "./ProjectContext.js"
import { decideTransition, retryStale } from "./Transition.js"
import { traced } from "../Tracing.js"

export interface DeleteResult {
  readonly id: PostId
  readonly deleted: boolean
  readonly unscheduled: boolean
  /** The status the post is left in; for a deleted post, the status it had. */
  readonly status: PostStatus
}

/**
 * DELETE /posts/{id}: removes a post that never went out, or unschedules a scheduled one
 * (back to pending_approval with its time when it needs a person's approval, else to draft).
 */
export const deletePost = traced("deletePost")(function*(principal: Principal, id: PostId) {
  yield* requireScope(principal, "posts:write")
  const project = yield* loadProject(principal)
  const store = yield* PostStore
  return yield* retryStale(Effect.gen(function*() {
    const { deliveries, post } = yield* loadPost(project.id, id)
    const outcome = yield* decideTransition(post, LifecycleEvent.Delete(), principal, project)
    if (outcome._tag === "Unscheduled") {
      const now = yield* DateTime.now
      const state = deliveryState(outcome.status, post.scheduledAt, now)
      yield* store.commit(PostChange.Update({
        expectedVersion: post.version,
        record: {
          post: post.with({ version: post.version + 1, status: outcome.status, decision: null, updatedAt: now }),
          deliveries: deliveries.map((delivery) => delivery.with({ ...state, updatedAt: now }))
        },
        events: []
      }))
      return { id: post.id, deleted: false, unscheduled: true, status: outcome.status } satisfies DeleteResult
    }
    yield* store.commit(PostChange.Remove({ expectedVersion: post.version, postId: post.id }))
    return { id: post.id, deleted: true, unscheduled: false, status: post.status } satisfies DeleteResult
  }))
})
