import { DateTime, Effect } from "effect"
import { requireScope } from "../Authorization.js"
import { StateConflict } from "../Errors.js"
import type { DeliveryId } from "../Ids.js"
import { LifecycleEvent } from "../Lifecycle.js"
import { loadDelivery } from "../PostLookup.js"
import type { ActorKind, Principal } from "../Principal.js"
import { PostChange, PostStore } from "../ports/PostStore.js"
import type { Project } from "../Project.js"
import { loadProject } from "./ProjectContext.js"
import { decideTransition, retryStale, statusOf, withDelivery } from "./Transition.js"
import { traced } from "../Tracing.js"

/** Puts one failed delivery back in the queue, due now; a delivery in any other state is a conflict. */
export const requeueFailed = (project: Project, id: DeliveryId, actor: Principal | ActorKind) =>
  Effect.flatMap(PostStore, (store) =>
    retryStale(Effect.gen(function*() {
      const { delivery, record } = yield* loadDelivery(project.id, id)
      if (delivery.status !== "failed") {
        return yield* new StateConflict({
          code: "delivery_not_failed",
          detail: `delivery ${id} is ${delivery.status}; only a failed delivery can be retried`
        })
      }
      const { post } = record
      const { status } = yield* decideTransition(post, LifecycleEvent.Retry(), actor, project).pipe(
        Effect.flatMap(statusOf)
      )
      const now = yield* DateTime.now
      const queued = delivery.with({ status: "queued", dueAt: now, error: null, updatedAt: now })
      const next = withDelivery(record, queued, status, now)
      yield* store.commit(PostChange.Update({ expectedVersion: post.version, record: next, events: [] }))
      return { delivery: queued, record: next }
    })))

/** POST /post-results/{id}/retry: only a failed delivery goes back in the queue. */
export const retryDelivery = traced("retryDelivery")(function*(principal: Principal, id: DeliveryId) {
  yield* requireScope(principal, "posts:write")
  const project = yield* loadProject(principal)
  return yield* requeueFailed(project, id, principal)
})
