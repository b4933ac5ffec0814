import { DateTime, Effect } from "effect"
import { requireScope } from "../Authorization.js"
import { NotEditable, ValidationFailed } from "../Errors.js"
import { PostId } from "../Ids.js"
import { editableStatuses, LifecycleEvent } from "../Lifecycle.js"
import { actorOf, PatchPostBody, Post } from "../Post.js"
import { deliveryState, newDeliveries, planPost } from "../PostPlan.js"
import { loadPost } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import { IdGenerator } from "../ports/IdGenerator.js"
import { PostChange, PostStore } from "../ports/PostStore.js"
import { loadProject } from "./ProjectContext.js"
import { decideTransition, retryStale, statusOf } from "./Transition.js"
import { traced } from "../Tracing.js"

const editableFields = Object.keys(PatchPostBody.fields) as ReadonlyArray<keyof PatchPostBody>

/**
 * PATCH /posts/{id}: an edit never changes a post in place. A new post with a new id supersedes
 * the old one; validation, guardrails and the signature run again on the new words. A body that
 * names no field is refused: it would replace the post's id (and send an approved post back to a
 * person) for no change.
 */
export const editPost = traced("editPost")(function*(principal: Principal, id: PostId, body: PatchPostBody) {
  yield* requireScope(principal, "posts:write")
  if (editableFields.every((field) => body[field] === undefined)) {
    return yield* new ValidationFailed({
      violations: [{ field: "body", account: null, message: `names no field to change (one of ${editableFields.join(", ")})` }]
    })
  }
  const project = yield* loadProject(principal)
  const store = yield* PostStore
  return yield* retryStale(Effect.gen(function*() {
    const { post } = yield* loadPost(project.id, id)
    if (!editableStatuses.includes(post.status)) return yield* new NotEditable({ postId: post.id, status: post.status })
    const plan = yield* planPost(project, {
      caption: body.caption === undefined ? post.caption : body.caption,
      accounts: post.accountIds,
      mediaIds: body.media_ids ?? post.mediaIds,
      scheduledAt: body.scheduled_at === undefined ? post.scheduledAt : body.scheduled_at,
      platformConfigurations: body.platform_configurations ?? post.platformConfigurations,
      skipSignature: post.skipSignature,
      accountsField: "social_accounts"
    })
    const outcome = yield* decideTransition(
      post,
      LifecycleEvent.Edit({ due: plan.due, draft: body.is_draft ?? null }),
      principal,
      project
    ).pipe(Effect.flatMap(statusOf))
    const now = yield* DateTime.now
    const successorId = PostId.make(yield* IdGenerator.pipe(Effect.flatMap((ids) => ids.uuid)))
    const successor = new Post({
      id: successorId,
      projectId: project.id,
      version: 1,
      status: outcome.status,
      caption: plan.caption,
      signature: plan.signature,
      skipSignature: post.skipSignature,
      accountIds: plan.accounts.map((account) => account.id),
      mediaIds: plan.media.map((media) => media.id),
      scheduledAt: plan.scheduledAt,
      platformConfigurations: body.platform_configurations ?? post.platformConfigurations,
      author: actorOf(principal),
      origin: post.origin,
      decision: outcome.decision === null ? null : post.decision,
      supersedes: post.id,
      supersededBy: null,
      idempotencyKey: null,
      createdAt: now,
      updatedAt: now
    })
    const deliveries = yield* newDeliveries(
      project.id,
      successorId,
      plan.accounts,
      deliveryState(outcome.status, plan.scheduledAt, now),
      now
    )
    yield* store.commit(PostChange.Supersede({
      expectedVersion: post.version,
      previous: post.with({ version: post.version + 1, supersededBy: successorId, updatedAt: now }),
      successor: { record: { post: successor, deliveries }, events: [], idempotency: null, dailyCap: null }
    }))
    return { post: successor, deliveries }
  }))
})
