import { Data, DateTime, Effect } from "effect"
import type { DeliveryError, DeliveryNote } from "../Delivery.js"
import { StateConflict } from "../Errors.js"
import { makeEvent, settledData } from "../EventData.js"
import type { DeliveryId, ProjectId } from "../Ids.js"
import { LifecycleEvent, transition } from "../Lifecycle.js"
import { loadDelivery } from "../PostLookup.js"
import { PostChange, type PostRecord, PostStore } from "../ports/PostStore.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import { lifecycleState, retryStale } from "./Transition.js"

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

/** Records the intent to publish: a scheduled post starts processing. */
export const beginAttempt = Effect.fn("beginAttempt")(function*(projectId: ProjectId, id: DeliveryId) {
  const store = yield* PostStore
  return yield* retryStale(Effect.gen(function*() {
    const { delivery, record } = yield* loadDelivery(projectId, id)
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
    const next: PostRecord = {
      post: post.with({ version: post.version + 1, status, updatedAt: now }),
      deliveries: record.deliveries.map((other) => other.id === id ? started : other)
    }
    yield* store.commit(PostChange.Update({ expectedVersion: post.version, record: next, events: [] }))
    return { delivery: started, record: next, previous: delivery.status }
  }))
})

/** Records what the platform answered, and settles the post once every delivery is final. */
export const finishAttempt = Effect.fn("finishAttempt")(function*(projectId: ProjectId, id: DeliveryId, result: AttemptResult) {
  const store = yield* PostStore
  const mode = yield* projectMode(projectId)
  return yield* retryStale(Effect.gen(function*() {
    const { delivery, record } = yield* loadDelivery(projectId, id)
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
        mode
      )
      : null
    const status = outcome !== null && outcome._tag === "Right" && outcome.right._tag === "Status" ? outcome.right.status : post.status
    const next: PostRecord = { post: post.with({ version: post.version + 1, status, updatedAt: now }), deliveries }
    const events = settled
      ? [yield* makeEvent(projectId, status === "failed" ? "post.failed" : "post.published", settledData(next))]
      : []
    yield* store.commit(PostChange.Update({ expectedVersion: post.version, record: next, events }))
    return next
  }))
})
