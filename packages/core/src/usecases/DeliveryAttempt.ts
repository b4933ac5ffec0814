import { Data, DateTime, Effect, Either } from "effect"
import type { Delivery, DeliveryNote, DeliveryStatus } from "../Delivery.js"
import type { DeliveryError } from "../DeliveryError.js"
import { foreignText } from "../StoredText.js"
import { DeliveryNotDue, type DeliveryNotFound, StaleWrite, type StateConflict } from "../Errors.js"
import type { OutboxEvent } from "../Event.js"
import { makeEvent, settledData } from "../EventData.js"
import type { DeliveryId, ProjectId } from "../Ids.js"
import type { IdGenerator } from "../ports/IdGenerator.js"
import { LifecycleEvent, transition } from "../Lifecycle.js"
import { loadDelivery } from "../PostLookup.js"
import { PostChange, type PostRecord, PostStore, type PostUpdate } from "../ports/PostStore.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import type { ApprovalMode } from "../Project.js"
import { lifecycleState, retryStale, withDeliveries } from "./Transition.js"

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
    readonly followUpPostIds: ReadonlyArray<string>
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

/** What the intent recorded: the delivery now publishing, the post as committed, and the status it had. */
export interface BegunAttempt {
  readonly delivery: Delivery
  readonly record: PostRecord
  readonly previous: DeliveryStatus
}

/** One delivery's step on the caller's copy of its post. */
interface Target extends AttemptContext {
  readonly projectId: ProjectId
  readonly id: DeliveryId
}

export interface BeginItem extends Target {}

export interface FinishItem extends Target {
  readonly result: AttemptResult
  /**
   * When the platform answered: the attempt's end. Its commit may wait for others to share it, and
   * a retry's due time is counted from the answer. The step's own time when absent.
   */
  readonly at?: DateTime.Utc
}

/** How one step ended: the StateConflict and DeliveryNotFound are the single step's errors. */
export type StepAnswer<A> = Either.Either<A, DeliveryNotDue | StateConflict | DeliveryNotFound>

/**
 * The change one post's steps make, built on one copy of it: several deliveries' steps fold into
 * one version (answers in the members' order; null change: nothing to write).
 */
type Fold<I, A, R> = (
  record: PostRecord,
  members: ReadonlyArray<{ readonly item: I; readonly delivery: Delivery }>
) => Effect.Effect<{ readonly change: PostUpdate | null; readonly answers: ReadonlyArray<Either.Either<A, DeliveryNotDue>> }, never, R>

/**
 * A read-decide-commit step that starts from the caller's copy of the post when there is one. A
 * stale copy costs one commit refused by the version check; every try after it reads afresh.
 */
const fromCopy = <I extends Target, A, R>(item: I, fold: Fold<I, A, R>) => {
  const once = (record: PostRecord, delivery: Delivery) =>
    Effect.gen(function*() {
      const { answers, change } = yield* fold(record, [{ item, delivery }])
      const answer = answers[0]!
      if (Either.isLeft(answer)) return yield* answer.left
      if (change !== null) yield* Effect.flatMap(PostStore, (store) => store.commit(change))
      return answer.right
    })
  const fresh = retryStale(Effect.flatMap(loadDelivery(item.projectId, item.id), ({ delivery, record }) => once(record, delivery)))
  const delivery = item.record?.deliveries.find((candidate) => candidate.id === item.id)
  if (item.record === undefined || delivery === undefined) return fresh
  return once(item.record, delivery).pipe(
    Effect.catchIf((error): error is StaleWrite => error instanceof StaleWrite, () => fresh)
  )
}

/**
 * The steps of many deliveries committed together: the members of one post fold into one change
 * on the newest copy the callers hold, and one commitAll writes every post's change. A delivery
 * without a copy, or whose post moved on, takes the single step, which reads afresh.
 */
const onCopies = <I extends Target, A, R>(items: ReadonlyArray<I>, fold: Fold<I, A, R>) =>
  Effect.gen(function*() {
    const answers: Array<StepAnswer<A>> = new Array(items.length)
    const posts = new Map<string, { record: PostRecord; members: Array<number> }>()
    const alone: Array<number> = []
    items.forEach((item, index) => {
      if (item.record === undefined) {
        alone.push(index)
        return
      }
      const post = posts.get(item.record.post.id)
      if (post === undefined) posts.set(item.record.post.id, { record: item.record, members: [index] })
      else {
        post.members.push(index)
        if (item.record.post.version > post.record.post.version) post.record = item.record
      }
    })
    const groups = yield* Effect.forEach(posts.values(), ({ members, record }) => {
      const found = members.map((index) => ({ index, item: items[index]!, delivery: record.deliveries.find((d) => d.id === items[index]!.id) }))
      for (const missing of found) if (missing.delivery === undefined) alone.push(missing.index)
      const present = found.filter((member): member is typeof member & { delivery: Delivery } => member.delivery !== undefined)
      return Effect.map(fold(record, present), (folded) => ({ ...folded, members: present.map((member) => member.index) }))
    })
    const changes = groups.flatMap((group) => group.change === null ? [] : [group.change])
    const stale = new Set((changes.length === 0 ? [] : yield* Effect.flatMap(PostStore, (store) => store.commitAll(changes))).map((error) => error.postId))
    for (const group of groups) {
      if (group.change !== null && stale.has(group.change.record.post.id)) alone.push(...group.members)
      else group.members.forEach((index, position) => answers[index] = group.answers[position]!)
    }
    const single = yield* Effect.forEach(alone, (index) => Effect.either(fromCopy({ ...items[index]!, record: undefined }, fold)), {
      concurrency: "unbounded"
    })
    alone.forEach((index, position) => answers[index] = single[position]!)
    return answers
  })

const due = (status: DeliveryStatus) => status === "queued" || status === "unknown" || status === "publishing"

/** The intent of each member that is due, on one copy: a scheduled post starts processing. */
const foldIntents: Fold<BeginItem, BegunAttempt, never> = (record, members) =>
  Effect.map(DateTime.now, (now) => {
    const started = members.flatMap(({ delivery }) =>
      due(delivery.status)
        ? [delivery.with({
          status: "publishing",
          attempts: [...delivery.attempts, { number: delivery.attempts.length + 1, startedAt: now, finishedAt: null, outcome: null, error: null }],
          updatedAt: now
        })]
        : []
    )
    const { post } = record
    const next = started.length === 0 ? record : withDeliveries(record, started, post.status === "scheduled" ? "processing" : post.status, now)
    return {
      change: started.length === 0 ? null : PostChange.Update({ expectedVersion: post.version, record: next, events: [] }) as PostUpdate,
      answers: members.map(({ delivery }) => {
        const begun = started.find((candidate) => candidate.id === delivery.id)
        return begun === undefined
          ? Either.left(new DeliveryNotDue({ deliveryId: delivery.id, status: delivery.status }))
          : Either.right({ delivery: begun, record: next, previous: delivery.status })
      })
    }
  })

/** A publisher's error as a delivery keeps it: the platform's code and message made storable. */
const storedError = (error: DeliveryError): DeliveryError => ({
  category: error.category,
  code: foreignText(error.code),
  message: foreignText(error.message)
})

/** The delivery once its open attempt has this result. */
const finished = (delivery: Delivery, result: AttemptResult, now: DateTime.Utc): Delivery => {
  const close = (outcome: "success" | "failed" | "unknown" | "reconciled", error: DeliveryError | null) =>
    delivery.attempts.map((attempt, index) =>
      index === delivery.attempts.length - 1 ? { ...attempt, finishedAt: now, outcome, error } : attempt
    )
  return AttemptResult.$match(result, {
    Published: ({ followUpPostIds, note, platformPostId, reconciled, url }) =>
      delivery.with({
        status: "success",
        dueAt: null,
        url,
        platformPostId,
        followUpPostIds,
        note,
        error: null,
        attempts: close(reconciled ? "reconciled" : "success", null),
        updatedAt: now
      }),
    Failed: ({ error: reported, retryAt }) => {
      const error = storedError(reported)
      return delivery.with({
        status: retryAt === null ? "failed" : "queued",
        dueAt: retryAt,
        error,
        attempts: close("failed", error),
        updatedAt: now
      })
    },
    Unknown: ({ error: reported, recheckAt }) => {
      const error = storedError(reported)
      return delivery.with({ status: "unknown", dueAt: recheckAt, error, attempts: close("unknown", error), updatedAt: now })
    }
  })
}

/** The outcomes of the members on one copy; the post settles once every delivery is final. */
const foldOutcomes: Fold<FinishItem, PostRecord, ProjectStore | IdGenerator> = Effect.fnUntraced(
  function*(record: PostRecord, members: ReadonlyArray<{ readonly item: FinishItem; readonly delivery: Delivery }>) {
    const now = yield* DateTime.now
    const changed = members.map(({ delivery, item }) => finished(delivery, item.result, item.at ?? now))
    const deliveries = record.deliveries.map((other) => changed.find((delivery) => delivery.id === other.id) ?? other)
    const { post } = record
    const settled = post.status === "processing" && deliveries.every((other) => other.settled)
    const approval = members.find(({ item }) => item.approval !== undefined)?.item.approval
    const outcome = settled
      ? transition(
        lifecycleState(post),
        LifecycleEvent.Settle({ delivered: deliveries.filter((other) => other.wentOut).length, targets: deliveries.length }),
        post.author.kind,
        approval ?? (yield* projectMode(post.projectId))
      )
      : null
    const status = outcome !== null && outcome._tag === "Right" && outcome.right._tag === "Status" ? outcome.right.status : post.status
    const next = withDeliveries(record, changed, status, now)
    const events: ReadonlyArray<OutboxEvent> = settled
      ? [yield* makeEvent(post.projectId, status === "failed" ? "post.failed" : "post.published", settledData(next))]
      : []
    return {
      change: PostChange.Update({ expectedVersion: post.version, record: next, events }) as PostUpdate,
      answers: members.map(() => Either.right(next))
    }
  }
)

/** Records the intent to publish: a scheduled post starts processing. */
export const beginAttempt = (projectId: ProjectId, id: DeliveryId, context: AttemptContext = {}) =>
  fromCopy<BeginItem, BegunAttempt, never>({ ...context, projectId, id }, foldIntents)

/** Records what the platform answered, and settles the post once every delivery is final. */
export const finishAttempt = (projectId: ProjectId, id: DeliveryId, result: AttemptResult, context: AttemptContext = {}) =>
  fromCopy<FinishItem, PostRecord, ProjectStore | IdGenerator>({ ...context, projectId, id, result }, foldOutcomes)

/** The intents of many deliveries, committed together (see beginAttempt); answers in their order. */
export const beginAttempts = (items: ReadonlyArray<BeginItem>) => onCopies(items, foldIntents)

/** The outcomes of many deliveries, committed together (see finishAttempt); answers in their order. */
export const finishAttempts = (items: ReadonlyArray<FinishItem>) => onCopies(items, foldOutcomes)
