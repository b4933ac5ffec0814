import { DateTime, Effect, Option } from "effect"
import { requireScope } from "../Authorization.js"
import { StateConflict, TakedownFailed } from "../Errors.js"
import type { DeliveryId } from "../Ids.js"
import { LifecycleEvent } from "../Lifecycle.js"
import { loadDelivery } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import { AccountStore } from "../ports/AccountStore.js"
import { PostChange, PostStore } from "../ports/PostStore.js"
import { Publishers } from "../ports/Publishers.js"
import { loadProject } from "./ProjectContext.js"
import { decideTransition, retryStale, statusOf, withDelivery } from "./Transition.js"
import { traced } from "../Tracing.js"

/**
 * POST /post-results/{id}/takedown: removes a live post from its platform through its publisher.
 * The receipt row stays (status taken_down, who and when); it cannot be undone.
 */
export const takedownDelivery = traced("takedownDelivery")(function*(principal: Principal, id: DeliveryId) {
  yield* requireScope(principal, "posts:write")
  const project = yield* loadProject(principal)
  const { delivery, record } = yield* loadDelivery(project.id, id)
  if (delivery.status === "taken_down") {
    return yield* new StateConflict({ code: "delivery_taken_down", detail: `delivery ${id} was already taken down` })
  }
  if (delivery.status !== "success" || delivery.platformPostId === null) {
    return yield* new StateConflict({
      code: "delivery_never_went_out",
      detail: `delivery ${id} is ${delivery.status}; only a delivered post can be taken down`
    })
  }
  yield* decideTransition(record.post, LifecycleEvent.Takedown(), principal, project)
  const accounts = yield* AccountStore.pipe(Effect.flatMap((store) => store.list(project.id)))
  const account = Option.fromNullable(accounts.find((candidate) => candidate.id === delivery.accountId))
  if (Option.isNone(account)) {
    return yield* new TakedownFailed({ deliveryId: id, category: "auth_expired", detail: "the account is no longer connected" })
  }
  const platformPostId = delivery.platformPostId
  yield* Publishers.pipe(
    Effect.flatMap((publishers) => publishers.forAccount(account.value).takedown(account.value, platformPostId)),
    Effect.catchTags({
      PublishFailed: (failure) =>
        Effect.fail(new TakedownFailed({ deliveryId: id, category: failure.error.category, detail: failure.error.message })),
      OutcomeUnknown: (unknown) => Effect.fail(new TakedownFailed({ deliveryId: id, category: "outcome_unknown", detail: unknown.detail }))
    })
  )
  const store = yield* PostStore
  return yield* retryStale(Effect.gen(function*() {
    const fresh = yield* loadDelivery(project.id, id)
    const { post } = fresh.record
    const { status } = yield* decideTransition(post, LifecycleEvent.Takedown(), principal, project).pipe(
      Effect.flatMap(statusOf)
    )
    const now = yield* DateTime.now
    const takenDown = fresh.delivery.with({ status: "taken_down", takedown: { by: principal.keyId, at: now }, updatedAt: now })
    const next = withDelivery(fresh.record, takenDown, status, now)
    yield* store.commit(PostChange.Update({ expectedVersion: post.version, record: next, events: [] }))
    return { delivery: takenDown, record: next }
  }))
})
