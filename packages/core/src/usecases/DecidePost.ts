import { DateTime, Effect, Schema } from "effect"
import { requireApprover } from "../Authorization.js"
import { decidedData, makeEvent } from "../EventData.js"
import { StateConflict } from "../Errors.js"
import type { PostId } from "../Ids.js"
import { LifecycleEvent } from "../Lifecycle.js"
import { deliveryState } from "../PostPlan.js"
import { loadPost } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import type { ChannelRecipient } from "../ApprovalChannel.js"
import type { ApprovalGrant } from "../ports/ApprovalLinks.js"
import { PostChange, PostStore } from "../ports/PostStore.js"
import { loadProject, loadProjectById } from "./ProjectContext.js"
import { decideTransition, retryStale, statusOf } from "./Transition.js"
import { traced } from "../Tracing.js"

export const DecisionBody = Schema.Struct({
  decision: Schema.Literal("approve", "reject"),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(2000)))
})
export type DecisionBody = typeof DecisionBody.Type

/**
 * Who decides: a human key, or a person holding the post's signed approval link (`channel`: the
 * approval channel message the link came in, when it came in one).
 */
export type Approver =
  | { readonly via: "api_key"; readonly principal: Principal }
  | { readonly via: "approval_link"; readonly grant: ApprovalGrant; readonly channel: ChannelRecipient | null }

const decide = (approver: Approver, id: PostId, body: DecisionBody) =>
  Effect.gen(function*() {
    const project = yield* (approver.via === "api_key"
      ? loadProject(approver.principal)
      : loadProjectById(approver.grant.projectId))
    const store = yield* PostStore
    return yield* retryStale(Effect.gen(function*() {
      const { deliveries, post } = yield* loadPost(project.id, id)
      const now = yield* DateTime.now
      const due = post.scheduledAt === null || !DateTime.greaterThan(post.scheduledAt, now)
      const approve = body.decision === "approve"
      const event = approve ? LifecycleEvent.Approve({ due }) : LifecycleEvent.Reject()
      const actor = approver.via === "api_key" ? approver.principal.kind : "human"
      const { status } = yield* decideTransition(post, event, actor, project).pipe(Effect.flatMap(statusOf))
      // The link decides the post as it was shown: one that changed since (even while this request
      // ran) needs its newest link.
      if (approver.via === "approval_link" && post.version !== approver.grant.version) {
        return yield* new StateConflict({
          code: "approval_link_outdated",
          detail: `post ${post.id} changed since this approval link was made; decide it through its newest link`
        })
      }
      const state = deliveryState(status, post.scheduledAt, now)
      const record = {
        post: post.with({
          version: post.version + 1,
          status,
          decision: {
            outcome: approve ? "approved" : "rejected",
            via: approver.via,
            by: approver.via === "api_key" ? approver.principal.keyId : null,
            byName: approver.via === "api_key" ? approver.principal.keyName : null,
            surface: approver.via === "api_key" ? approver.principal.surface : null,
            at: now,
            reason: body.reason ?? null,
            channel: approver.via === "approval_link" ? approver.channel : null
          },
          updatedAt: now
        }),
        deliveries: deliveries.map((delivery) => delivery.with({ ...state, updatedAt: now }))
      }
      const decided = yield* makeEvent(project.id, approve ? "post.approved" : "post.rejected", decidedData(record))
      yield* store.commit(PostChange.Update({ expectedVersion: post.version, record, events: [decided] }))
      return record
    }))
  })

/** POST /posts/{id}/approve: a person approves (publishing follows) or rejects a held post. */
export const decidePost = traced("decidePost")(function*(principal: Principal, id: PostId, body: DecisionBody) {
  yield* requireApprover(principal)
  return yield* decide({ via: "api_key", principal }, id, body)
})

/**
 * The approval page's buttons: the signed link (checked by the caller) is the person's credential.
 * The same lifecycle rules apply, so an already-decided post cannot be decided again, and the link
 * decides only the version it was made for.
 */
export const decidePostByLink = traced("decidePostByLink")(
  function*(grant: ApprovalGrant, body: DecisionBody, channel: ChannelRecipient | null = null) {
    return yield* decide({ via: "approval_link", grant, channel }, grant.postId, body)
  }
)
