import { DateTime, Effect, Schema } from "effect"
import { requireApprover } from "../Authorization.js"
import { decidedData, makeEvent } from "../EventData.js"
import type { PostId } from "../Ids.js"
import { LifecycleEvent } from "../Lifecycle.js"
import { deliveryState } from "../PostPlan.js"
import { loadPost } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import { PostChange, PostStore } from "../ports/PostStore.js"
import { loadProject } from "./ProjectContext.js"
import { decideTransition, retryStale, statusOf } from "./Transition.js"

export const DecisionBody = Schema.Struct({
  decision: Schema.Literal("approve", "reject"),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(2000)))
})
export type DecisionBody = typeof DecisionBody.Type

/** POST /posts/{id}/approve: a person approves (publishing follows) or rejects a held post. */
export const decidePost = Effect.fn("decidePost")(function*(principal: Principal, id: PostId, body: DecisionBody) {
  yield* requireApprover(principal)
  const project = yield* loadProject(principal)
  const store = yield* PostStore
  return yield* retryStale(Effect.gen(function*() {
    const { deliveries, post } = yield* loadPost(project.id, id)
    const now = yield* DateTime.now
    const due = post.scheduledAt === null || !DateTime.greaterThan(post.scheduledAt, now)
    const approve = body.decision === "approve"
    const event = approve ? LifecycleEvent.Approve({ due }) : LifecycleEvent.Reject()
    const { status } = yield* decideTransition(post, event, principal, project).pipe(Effect.flatMap(statusOf))
    const state = deliveryState(status, post.scheduledAt, now)
    const record = {
      post: post.with({
        version: post.version + 1,
        status,
        decision: { outcome: approve ? "approved" : "rejected", by: principal.keyId, at: now, reason: body.reason ?? null },
        updatedAt: now
      }),
      deliveries: deliveries.map((delivery) => delivery.with({ ...state, updatedAt: now }))
    }
    const event_ = yield* makeEvent(project.id, approve ? "post.approved" : "post.rejected", decidedData(record))
    yield* store.commit(PostChange.Update({ expectedVersion: post.version, record, events: [event_] }))
    return record
  }))
})
