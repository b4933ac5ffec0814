import { DateTime, Duration, Effect, Either, Option } from "effect"
import { requireScope } from "../Authorization.js"
import { type Delivery, takedownBy } from "../Delivery.js"
import { StateConflict, TakedownFailed } from "../Errors.js"
import type { DeliveryId, ProjectId } from "../Ids.js"
import { LifecycleEvent } from "../Lifecycle.js"
import { loadDelivery } from "../PostLookup.js"
import type { Principal } from "../Principal.js"
import type { Project } from "../Project.js"
import { AccountStore } from "../ports/AccountStore.js"
import { PostChange, PostStore } from "../ports/PostStore.js"
import { OutcomeUnknown, Publishers } from "../ports/Publishers.js"
import { loadProject } from "./ProjectContext.js"
import { decideTransition, retryStale, statusOf, withDelivery } from "./Transition.js"
import { traced } from "../Tracing.js"

/** How long the platform may take to answer a takedown before its outcome counts as unknown. */
export const takedownCallLimit = Duration.seconds(30)

/**
 * How long a recorded takedown holds its delivery against other takedowns. A request that died
 * between recording its intent and recording the platform's answer leaves the intent behind; once
 * it is this old, the next takedown takes it over. Well beyond the call's limit, so a request
 * still waiting for the platform is never taken over.
 */
export const takedownLease = Duration.minutes(2)

/** A takedown this request recorded: the delivery as committed with it. */
interface Intent {
  readonly delivery: Delivery
  readonly platformPostId: string
  readonly followUpPostIds: ReadonlyArray<string>
}

const held = (delivery: Delivery, now: DateTime.Utc) =>
  delivery.takedown !== null && DateTime.lessThan(now, DateTime.addDuration(delivery.takedown.at, takedownLease))

/** The account the delivery went out on, while it is still connected to the project. */
const accountOf = (projectId: ProjectId, delivery: Delivery) =>
  Effect.map(
    Effect.flatMap(AccountStore, (store) => store.list(projectId)),
    (accounts) => Option.fromNullable(accounts.find((candidate) => candidate.id === delivery.accountId))
  )

/**
 * The account the delivery went out on, with its route's takedown; none when the account is no
 * longer connected. A route whose platform offers no delete (TikTok's API, Instagram Login) is
 * refused before anything is recorded or sent: the receipt stays as it was, and the message says
 * where the post can be removed by hand.
 */
const takedownOf = (projectId: ProjectId, delivery: Delivery) =>
  Effect.gen(function*() {
    const found = yield* accountOf(projectId, delivery)
    if (Option.isNone(found)) return Option.none()
    const account = found.value
    const takedown = (yield* Publishers).forAccount(account).takedown
    if (takedown !== undefined) return Option.some({ account, takedown })
    return yield* new StateConflict({
      code: "takedown_unsupported",
      detail: `${account.platform} does not let Herald delete posts of @${account.username} (route ${account.route}): ` +
        `remove delivery ${delivery.id}'s post in the ${account.platform} app; its receipt is unchanged`
    })
  })

/**
 * Records the intent (who asked, when) on the delivery before the platform is called, so a
 * concurrent takedown reads it and is refused rather than sending its own DELETE.
 */
const recordIntent = (principal: Principal, project: Project, id: DeliveryId) =>
  Effect.flatMap(PostStore, (store) =>
    retryStale(Effect.gen(function*() {
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
      yield* takedownOf(project.id, delivery)
      const now = yield* DateTime.now
      if (held(delivery, now)) {
        return yield* new StateConflict({
          code: "delivery_taken_down",
          detail: `delivery ${id} is being taken down by another request; its receipt shows the outcome`
        })
      }
      const { status } = yield* decideTransition(record.post, LifecycleEvent.Takedown(), principal, project).pipe(
        Effect.flatMap(statusOf)
      )
      const asked = delivery.with({ takedown: takedownBy(principal, now), updatedAt: now })
      yield* store.commit(PostChange.Update({ expectedVersion: record.post.version, record: withDelivery(record, asked, status, now), events: [] }))
      return { delivery: asked, platformPostId: delivery.platformPostId, followUpPostIds: delivery.followUpPostIds } satisfies Intent
    })))

/**
 * Asks the platform to remove the post. A platform that no longer holds it has removed it, maybe
 * through an earlier call whose answer was lost (timed out, or its request died): that is success.
 */
const removeFromPlatform = (projectId: ProjectId, { delivery, followUpPostIds, platformPostId }: Intent) =>
  Effect.gen(function*() {
    const found = yield* takedownOf(projectId, delivery)
    if (Option.isNone(found)) {
      return yield* new TakedownFailed({ deliveryId: delivery.id, category: "auth_expired", detail: "the account is no longer connected" })
    }
    const { account, takedown } = found.value
    yield* Effect.interruptible(takedown(account, platformPostId, followUpPostIds)).pipe(
      Effect.timeoutFail({
        duration: takedownCallLimit,
        onTimeout: () => new OutcomeUnknown({ detail: `${delivery.platform} did not answer within ${Duration.format(takedownCallLimit)}` })
      }),
      Effect.catchTags({
        AlreadyGone: () => Effect.void,
        PublishFailed: (failure) =>
          Effect.fail(new TakedownFailed({ deliveryId: delivery.id, category: failure.error.category, detail: failure.error.message })),
        OutcomeUnknown: (unknown) => Effect.fail(new TakedownFailed({ deliveryId: delivery.id, category: "outcome_unknown", detail: unknown.detail }))
      })
    )
  })

/** The platform kept the post: the receipt returns to what it was, unless another request took the intent over. */
const withdraw = (projectId: ProjectId, intent: Intent) =>
  Effect.flatMap(PostStore, (store) =>
    retryStale(Effect.gen(function*() {
      const { delivery, record } = yield* loadDelivery(projectId, intent.delivery.id)
      const mine = intent.delivery.takedown!
      const still = delivery.status === "success" && delivery.takedown !== null && delivery.takedown.by === mine.by &&
        DateTime.Equivalence(delivery.takedown.at, mine.at)
      if (!still) return
      const now = yield* DateTime.now
      const back = delivery.with({ takedown: null, updatedAt: now })
      yield* store.commit(PostChange.Update({
        expectedVersion: record.post.version,
        record: withDelivery(record, back, record.post.status, now),
        events: []
      }))
    }))).pipe(
    // The intent then stays until its lease lapses; the caller still hears why the platform refused.
    Effect.catchAll((error) => Effect.logWarning(`takedown of delivery ${intent.delivery.id}: its intent stays until its lease lapses`, error))
  )

/** The post is off the platform: the delivery is taken_down (still counted as delivered). */
const recordTakenDown = (principal: Principal, project: Project, id: DeliveryId) =>
  Effect.flatMap(PostStore, (store) =>
    retryStale(Effect.gen(function*() {
      const { delivery, record } = yield* loadDelivery(project.id, id)
      // A request that took this one's intent over (its lease lapsed) finished first.
      if (delivery.status === "taken_down") return { delivery, record }
      const { status } = yield* decideTransition(record.post, LifecycleEvent.Takedown(), principal, project).pipe(
        Effect.flatMap(statusOf)
      )
      const now = yield* DateTime.now
      const takenDown = delivery.with({ status: "taken_down", takedown: takedownBy(principal, now), updatedAt: now })
      const next = withDelivery(record, takenDown, status, now)
      yield* store.commit(PostChange.Update({ expectedVersion: record.post.version, record: next, events: [] }))
      return { delivery: takenDown, record: next }
    })))

/**
 * POST /post-results/{id}/takedown: removes a live post from its platform through its publisher,
 * in two commits around the call, as publishing does: the intent before it (a concurrent takedown
 * gets 409 delivery_taken_down, and the platform sees one DELETE), the outcome after it. The
 * receipt row stays (status taken_down, who and when); it cannot be undone.
 */
export const takedownDelivery = traced("takedownDelivery")(function*(principal: Principal, id: DeliveryId) {
  yield* requireScope(principal, "posts:write")
  const project = yield* loadProject(principal)
  const intent = yield* recordIntent(principal, project, id)
  // Once the intent is recorded the request ends by recording the answer, even if its client
  // goes away: only the call's own time limit cuts it short.
  return yield* Effect.uninterruptible(Effect.gen(function*() {
    const removed = yield* Effect.either(removeFromPlatform(project.id, intent))
    if (Either.isLeft(removed)) {
      yield* withdraw(project.id, intent)
      return yield* removed.left
    }
    return yield* recordTakenDown(principal, project, id)
  }))
})
