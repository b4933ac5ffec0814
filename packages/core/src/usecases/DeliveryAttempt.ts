import { Data, DateTime, Effect } from "effect"
import type { Delivery, DeliveryError, DeliveryNote } from "../Delivery.js"
import { StaleWrite, StateConflict } from "../Errors.js"
import { makeEvent, settledData } from "../EventData.js"
import type { DeliveryId, ProjectId } from "../Ids.js"
import { LifecycleEvent, transition } from "../Lifecycle.js"
import { loadDelivery } from "../PostLookup.js"
import { PostChange, type PostRecord, PostStore } from "../ports/PostStore.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import type { ApprovalMode } from "../Project.js"
import { lifecycleState, retryStale, withDelivery } from "./Transition.js"

/**
 * The two halves of one platform call, each committed before the next step: the intent
 * (status publishing, an attempt opened) before the call, the outcome after it. A worker that dies
 * between them leaves the delivery publishing under an expired lease; the next claim treats it as
 * an unknown outcome and reconciles before anything is sent again.
 */
export type AttemptResult = Data.TaggedEnum<{
  Published: {
    readonly platformPostId: string
    readonly url: string
    readonly note: DeliveryNote | null
    /** Found on the platform by its marker after an unknown outcome, rather than posted now. */
    readonly reconciled: boolean
  }
  /** retryAt null: permanent, the delivery fails now. */
  Failed: { readonly error: DeliveryError; readonly retryAt: DateTime.Utc | null }
  /** No answer: look the post up by its marker at recheckAt before any retry. */
  Unknown: { readonly error: DeliveryError; readonly recheckAt: DateTime.Utc }
}>
export const AttemptResult = Data.taggedEnum<AttemptResult>()

const projectMode = (projectId: ProjectId) =>
  ProjectStore.pipe(
    Effect.flatMap((store) => store.get(projectId)),
    Effect.map((project) => project._tag === "Some" ? project.value.approval : "autopilot" as const)
  )

/**
 * What the caller already holds: the post as it just read or wrote it, and the project's approval
 * mode. Saves the reads on the dispatcher's path; the commit's version check still guards it.
 */
export interface AttemptContext {
  readonly record?: PostRecord
  readonly approval?: ApprovalMode
}

/**
 * A read-decide-commit step that starts from the caller's copy of the post when there is one. A
 * stale copy costs one commit refused by the version check; every try after it reads afresh.
 */
const fromCopy = <A, E, R>(
  projectId: ProjectId,
  id: DeliveryId,
  copy: PostRecord | undefined,
  step: (read: { readonly record: PostRecord; readonly delivery: Delivery }) => Effect.Effect<A, E | StaleWrite, R>
) => {
  const fresh = retryStale(Effect.flatMap(loadDelivery(projectId, id), step))
  if (copy === undefined) return fresh
  const delivery = copy.deliveries.find((candidate) => candidate.id === id)
  if (delivery === undefined) return fresh
  return step({ record: copy, delivery }).pipe(
    Effect.catchIf((error): error is StaleWrite => error instanceof StaleWrite, () => fresh)
  )
}

/** Records the intent to publish: a scheduled post starts processing. */
export const beginAttempt = Effect.fn("beginAttempt")(function*(projectId: ProjectId, id: DeliveryId, context: AttemptContext = {}) {
  const store = yield* PostStore
  return yield* fromCopy(projectId, id, context.record, ({ delivery, record }) => Effect.gen(function*() {
    if (delivery.status !== "queued" && delivery.status !== "unknown" && delivery.status !== "publishing") {
      return yield* new StateConflict({ code: "delivery_not_due", detail: `delivery ${id} is ${delivery.status}` })
    }
    const now = yield* DateTime.now
    const { post } = record
    const status = post.status === "scheduled" ? "processing" as const : post.status
    const started = delivery.with({
      status: "publishing",
      attempts: [...delivery.attempts, { number: delivery.attempts.length + 1, startedAt: now, finishedAt: null, outcome: null, error: null }],
      updatedAt: now
    })
    const next = withDelivery(record, started, status, now)
    yield* store.commit(PostChange.Update({ expectedVersion: post.version, record: next, events: [] }))
    return { delivery: started, record: next, previous: delivery.status }
  }))
})

/** Records what the platform answered, and settles the post once every delivery is final. */
export const finishAttempt = Effect.fn("finishAttempt")(function*(
  projectId: ProjectId,
  id: DeliveryId,
  result: AttemptResult,
  context: AttemptContext = {}
) {
  const store = yield* PostStore
  return yield* fromCopy(projectId, id, context.record, ({ delivery, record }) => Effect.gen(function*() {
    const now = yield* DateTime.now
    const close = (outcome: "success" | "failed" | "unknown" | "reconciled", error: DeliveryError | null) =>
      delivery.attempts.map((attempt, index) =>
        index === delivery.attempts.length - 1 ? { ...attempt, finishedAt: now, outcome, error } : attempt
      )
    const finished = AttemptResult.$match(result, {
      Published: ({ note, platformPostId, reconciled, url }) =>
        delivery.with({
          status: "success",
          dueAt: null,
          url,
          platformPostId,
          note,
          error: null,
          attempts: close(reconciled ? "reconciled" : "success", null),
          updatedAt: now
        }),
      Failed: ({ error, retryAt }) =>
        delivery.with({
          status: retryAt === null ? "failed" : "queued",
          dueAt: retryAt,
          error,
          attempts: close("failed", error),
          updatedAt: now
        }),
      Unknown: ({ error, recheckAt }) =>
        delivery.with({ status: "unknown", dueAt: recheckAt, error, attempts: close("unknown", error), updatedAt: now })
    })
    const deliveries = record.deliveries.map((other) => other.id === id ? finished : other)
    const { post } = record
    const settled = post.status === "processing" && deliveries.every((other) => other.settled)
    const outcome = settled
      ? transition(
        lifecycleState(post),
        LifecycleEvent.Settle({ delivered: deliveries.filter((other) => other.wentOut).length, targets: deliveries.length }),
        post.author.kind,
        context.approval ?? (yield* projectMode(projectId))
      )
      : null
    const status = outcome !== null && outcome._tag === "Right" && outcome.right._tag === "Status" ? outcome.right.status : post.status
    const next = withDelivery(record, finished, status, now)
    const events = settled
      ? [yield* makeEvent(projectId, status === "failed" ? "post.failed" : "post.published", settledData(next))]
      : []
    yield* store.commit(PostChange.Update({ expectedVersion: post.version, record: next, events }))
    return next
  }))
})
