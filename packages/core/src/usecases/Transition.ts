import { type DateTime, Effect, Either, Schema } from "effect"
import type { Delivery } from "../Delivery.js"
import { AgentCannotApprove, NotEditable, StaleWrite, StateConflict, StateConflictCode } from "../Errors.js"
import { type LifecycleEvent, type Outcome, Refusal, transition } from "../Lifecycle.js"
import type { Post, PostStatus } from "../Post.js"
import type { PostRecord } from "../ports/PostStore.js"
import type { ActorKind, Principal } from "../Principal.js"
import type { Project } from "../Project.js"

/** The record's next version after some of its deliveries changed: those replaced, the post at `status`. */
export const withDeliveries = (
  record: PostRecord,
  changed: ReadonlyArray<Delivery>,
  status: PostStatus,
  now: DateTime.Utc
): PostRecord => ({
  post: record.post.with({ version: record.post.version + 1, status, updatedAt: now }),
  deliveries: record.deliveries.map((other) => changed.find((delivery) => delivery.id === other.id) ?? other)
})

/** The record's next version after one delivery changed. */
export const withDelivery = (record: PostRecord, delivery: Delivery, status: PostStatus, now: DateTime.Utc): PostRecord =>
  withDeliveries(record, [delivery], status, now)

export const lifecycleState = (post: Post) => ({
  status: post.status,
  author: post.author.kind,
  decision: post.decision?.outcome ?? null
})

const isStateConflictCode = Schema.is(StateConflictCode)

/**
 * The lifecycle's verdict on a client's event about an existing post, with refusals as the errors
 * the contract answers (an out-of-turn refusal cannot come of such an event: a defect if it did).
 */
export const decideTransition = (
  post: Post,
  event: LifecycleEvent,
  actor: Principal | ActorKind,
  project: Project
): Effect.Effect<Outcome, NotEditable | AgentCannotApprove | StateConflict> =>
  Either.match(transition(lifecycleState(post), event, typeof actor === "string" ? actor : actor.kind, project.approval), {
    onRight: Effect.succeed,
    onLeft: Refusal.$match({
      NotEditable: ({ status }) => Effect.fail(new NotEditable({ postId: post.id, status })),
      AgentCannotDecide: () => Effect.fail(new AgentCannotApprove()),
      Conflict: ({ code, detail }) =>
        isStateConflictCode(code)
          ? Effect.fail(new StateConflict({ code, detail }))
          : Effect.dieMessage(`the lifecycle refused a client's event as out of turn (${code}): ${detail}`)
    })
  })

/** A status the lifecycle must give for this event (a defect otherwise). */
export const statusOf = (outcome: Outcome) =>
  outcome._tag === "Status" ? Effect.succeed(outcome) : Effect.dieMessage(`expected a status, got ${outcome._tag}`)

/**
 * Runs a read-decide-commit step again when another writer committed first; after a few lost
 * races the caller gets a 409 rather than a hang.
 */
export const retryStale = <A, E, R>(step: Effect.Effect<A, E | StaleWrite, R>): Effect.Effect<A, Exclude<E, StaleWrite> | StateConflict, R> =>
  step.pipe(
    Effect.retry({ times: 8, while: (error) => error instanceof StaleWrite }),
    Effect.catchIf(
      (error): error is StaleWrite => error instanceof StaleWrite,
      () => Effect.fail(new StateConflict({ code: "concurrent_update", detail: "the post kept changing under this request; try again" }))
    )
  ) as Effect.Effect<A, Exclude<E, StaleWrite> | StateConflict, R>
