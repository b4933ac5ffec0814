import { DateTime, Effect, Either, Option, Schema } from "effect"
import { requireScope } from "../Authorization.js"
import { IdempotencyKeyReused, PlanInactive } from "../Errors.js"
import { canonicalJson } from "../Idempotency.js"
import { PostId } from "../Ids.js"
import { LifecycleEvent, transition } from "../Lifecycle.js"
import { actorOf, type CreatePostBody, Post, PostStatus } from "../Post.js"
import { deliveryState, newDeliveries, planPost } from "../PostPlan.js"
import type { Principal } from "../Principal.js"
import { ApprovalLinks } from "../ports/ApprovalLinks.js"
import { IdGenerator } from "../ports/IdGenerator.js"
import { PublishingPauses } from "../ports/PublishingPauses.js"
import { holdingPause, pausedNote } from "../PublishingPause.js"
import { CreateOutcome, type PostRecord, PostStore } from "../ports/PostStore.js"
import { dailyCapClaim, loadProject } from "./ProjectContext.js"
import { traced } from "../Tracing.js"

export interface CreatePostResult {
  readonly record: PostRecord
  readonly repeated: boolean
  readonly message: string
  /** The signed approval page, for posts held for a person. */
  readonly approvalUrl: string | null
}

/** The fields of POST /posts's reply (and MCP create_post's result), beside `repeated`. */
export const createdPostFields = {
  id: Schema.UUID,
  status: PostStatus,
  message: Schema.String.annotations({ description: "Why the post is in this status (a held post says why it waits)." }),
  approval_url: Schema.optional(Schema.String.annotations({ description: "The signed approval page, on a post held for approval." }))
}

/** POST /posts's reply: 201 when new, 200 with repeated true when idempotency_key matched. */
export const CreatedPostReply = Schema.Struct({
  ...createdPostFields,
  repeated: Schema.Boolean.annotations({ description: "true: idempotency_key matched an earlier create; nothing new was written." })
})
export type CreatedPostReply = typeof CreatedPostReply.Type

/** A create's outcome as POST /posts answers it. */
export const createdPostReply = (created: CreatePostResult): CreatedPostReply => ({
  id: created.record.post.id,
  status: created.record.post.status,
  message: created.message,
  ...(created.record.post.status === "pending_approval" && created.approvalUrl !== null
    ? { approval_url: created.approvalUrl }
    : {}),
  repeated: created.repeated
})

export const statusMessage = (record: PostRecord): string => {
  const { post } = record
  const targets = `${record.deliveries.length} account${record.deliveries.length === 1 ? "" : "s"}`
  const messages: Record<PostStatus, string> = {
    pending_approval: post.author.kind === "agent"
      ? "Held for approval: this project is in copilot mode, so a person approves posts written by agent keys before they go out (share approval_url, or approve with a human key)."
      : "Held for approval: a person approves it before it goes out.",
    scheduled: `Scheduled for ${post.scheduledAt === null ? "its time" : DateTime.formatIso(post.scheduledAt)} to ${targets}.`,
    processing: `Publishing now to ${targets}.`,
    draft: "Saved as a draft: nothing is published until an edit sets is_draft to false.",
    posted: `Posted to ${targets}.`,
    partial: "Posted to some accounts; see GET /post-results for the ones that failed.",
    failed: "Failed on every account; see GET /post-results for why, and retry a delivery.",
    rejected: "Rejected by a person."
  }
  return messages[post.status]
}

/** Only a held post has an approval page, so only a held post pays for signing its URL. */
const approvalUrlFor = (record: PostRecord): Effect.Effect<string | null, never, ApprovalLinks> =>
  record.post.status === "pending_approval"
    ? Effect.flatMap(ApprovalLinks, (links) => links.urlFor(record.post))
    : Effect.succeed(null)

/**
 * The post that now stands for `record`: an edit supersedes a post with a new one, so a resend of
 * the create that made it answers the last of its successors (the id that does not 404), not the
 * id the first create answered. A successor deleted since ends the walk at the post before it.
 */
const standing = (record: PostRecord): Effect.Effect<PostRecord, never, PostStore> =>
  record.post.supersededBy === null
    ? Effect.succeed(record)
    : PostStore.pipe(
      Effect.flatMap((store) => store.find(record.post.projectId, record.post.supersededBy!)),
      Effect.flatMap(Option.match({ onNone: () => Effect.succeed(record), onSome: standing }))
    )

const replay = (first: PostRecord) =>
  Effect.flatMap(standing(first), (record) => approvalUrlFor(record).pipe(
    Effect.map((approvalUrl): CreatePostResult => ({
      record,
      repeated: true,
      message: record === first
        ? `Repeated: idempotency_key already created this post. ${statusMessage(record)}`
        : `Repeated: idempotency_key already created post ${first.post.id}, which an edit replaced with this one. ${statusMessage(record)}`,
      approvalUrl
    }))
  ))

/** A post that waits to publish says so when an emergency stop holds its project (the stop keeps it, due as it is). */
const noteOfPause = (result: CreatePostResult): Effect.Effect<CreatePostResult, never, PublishingPauses> => {
  const { post } = result.record
  if (post.status === "draft" || post.status === "rejected") return Effect.succeed(result)
  return Effect.map(Effect.flatMap(PublishingPauses, (pauses) => pauses.holding(post.projectId)), (holding) => {
    const pause = holdingPause(holding)
    return pause === undefined ? result : { ...result, message: result.message + pausedNote(pause) }
  })
}

/** POST /posts: validate, run the guardrails, hold or release, and write it all in one transaction. */
export const createPost = traced("createPost")(function*(principal: Principal, body: CreatePostBody) {
  yield* requireScope(principal, "posts:write")
  const project = yield* loadProject(principal)
  const store = yield* PostStore
  const idempotency = body.idempotency_key === undefined
    ? null
    : { key: body.idempotency_key, fingerprint: canonicalJson(body) }
  if (idempotency !== null) {
    const earlier = yield* store.findIdempotent(project.id, idempotency.key)
    if (Option.isSome(earlier)) {
      if (earlier.value.fingerprint !== idempotency.fingerprint) {
        return yield* new IdempotencyKeyReused({ key: idempotency.key })
      }
      return yield* Effect.flatMap(replay(earlier.value.record), noteOfPause)
    }
  }
  if (project.plan !== "active") return yield* new PlanInactive()

  const plan = yield* planPost(project, {
    caption: body.caption ?? null,
    accounts: body.social_accounts,
    mediaIds: body.media_ids ?? [],
    scheduledAt: body.scheduled_at ?? null,
    platformConfigurations: body.platform_configurations ?? {},
    skipSignature: body.skip_signature ?? false,
    accountsField: "social_accounts"
  })
  const outcome = transition(null, LifecycleEvent.Create({ draft: body.is_draft ?? false, due: plan.due }), principal.kind, project.approval)
  if (Either.isLeft(outcome) || outcome.right._tag !== "Status") {
    return yield* Effect.dieMessage("a new post always has a status")
  }
  const now = yield* DateTime.now
  const id = PostId.make(yield* IdGenerator.pipe(Effect.flatMap((ids) => ids.uuid)))
  const status = outcome.right.status
  const post = new Post({
    id,
    projectId: project.id,
    version: 1,
    status,
    caption: plan.caption,
    signature: plan.signature,
    skipSignature: body.skip_signature ?? false,
    accountIds: plan.accounts.map((account) => account.id),
    mediaIds: plan.media.map((media) => media.id),
    scheduledAt: plan.scheduledAt,
    platformConfigurations: body.platform_configurations ?? {},
    author: actorOf(principal),
    origin: actorOf(principal),
    decision: null,
    supersedes: null,
    supersededBy: null,
    idempotencyKey: idempotency?.key ?? null,
    createdAt: now,
    updatedAt: now
  }, true) // typed values, and the caption checked by planPost: no second check on the hot path
  const deliveries = yield* newDeliveries(project.id, id, plan.accounts, deliveryState(status, plan.scheduledAt, now), now)
  const written = yield* store.create({
    record: { post, deliveries },
    events: [],
    idempotency,
    dailyCap: dailyCapClaim(principal, project, now)
  })
  const result = yield* CreateOutcome.$match(written, {
    Repeated: ({ record }) => replay(record),
    Created: ({ record }) =>
      Effect.map(
        approvalUrlFor(record),
        (approvalUrl): CreatePostResult => ({ record, repeated: false, message: statusMessage(record), approvalUrl })
      )
  })
  return yield* noteOfPause(result)
})
