import { DateTime, Deferred, Duration, Effect, Either, FiberId, Metric, Option, Random } from "effect"
import { SocialAccount } from "../Account.js"
import { recheckDelay, retryDelay, type RetryPolicy } from "../Backoff.js"
import { batching } from "../Batching.js"
import type { Delivery } from "../Delivery.js"
import type { DeliveryError } from "../DeliveryError.js"
import { DeliveryNotFound } from "../Errors.js"
import { deadLogin } from "../ConnectionIssue.js"
import { deadLoginData, makeEvent } from "../EventData.js"
import { checkGuardrails } from "../Guardrails.js"
import { outboundTexts } from "../guardrails/OutboundText.js"
import type { ProjectId } from "../Ids.js"
import type { PlatformCalls } from "../PlatformCalls.js"
import { deliveryNote } from "../platforms/DeliveryNote.js"
import { AccountConnections } from "../ports/AccountConnections.js"
import { AccountStore } from "../ports/AccountStore.js"
import { IdGenerator } from "../ports/IdGenerator.js"
import type { ClaimedDelivery } from "../ports/DeliveryQueue.js"
import { MediaLibrary } from "../ports/MediaLibrary.js"
import { type PostRecord, PostStore } from "../ports/PostStore.js"
import type { ProjectStore } from "../ports/ProjectStore.js"
import { PublishingPauses } from "../ports/PublishingPauses.js"
import { type PublishRequest, Publishers } from "../ports/Publishers.js"
import { printedText } from "../PostValidation.js"
import { deliveriesHandled } from "../ServiceMetrics.js"
import type { Project } from "../Project.js"
import {
  AttemptResult,
  type BeginItem,
  beginAttempts,
  type BegunAttempt,
  type FinishItem,
  finishAttempts,
  type StepAnswer
} from "./DeliveryAttempt.js"
import { loadProjectById } from "./ProjectContext.js"

export interface DispatchPolicy extends RetryPolicy {
  /** A platform call without an answer by then is an unknown outcome. */
  readonly publishTimeout: Duration.Duration
}

/** How one claim ended, for the dispatcher's lease and its log. */
export type Dispatched =
  | "published"
  | "reconciled"
  | "retrying"
  | "failed"
  | "unknown"
  /** Not sent: publishing is paused for its project (an emergency stop); it stays queued, due as it was. */
  | "paused"
  /** Nothing to do: the delivery was settled, removed, or taken by another worker. */
  | "skipped"

const failure = (category: DeliveryError["category"], code: string, message: string): DeliveryError => ({ category, code, message })

/**
 * A project as deliveries are checked against it: its guardrails, approval mode and accounts, and
 * whether an emergency stop holds its publishing.
 */
export interface ProjectView {
  readonly project: Project
  readonly accounts: ReadonlyArray<SocialAccount>
  readonly paused: boolean
}

export type ProjectViews = (projectId: ProjectId) => Effect.Effect<ProjectView, never, ProjectStore | AccountStore | PublishingPauses>

/**
 * Reads each project's view at most once. The dispatcher makes one per claim batch, so what it
 * just claimed is checked against the project and accounts as they are now, without two reads per
 * delivery of the same project. The first delivery of a project reads it in its own fiber; the
 * others wait for that read. (Effect.cachedFunction took a semaphore and replayed the reader's
 * fiber refs on every delivery.)
 */
export const projectViews: Effect.Effect<ProjectViews> = Effect.sync(() => {
  const views = new Map<ProjectId, Deferred.Deferred<ProjectView>>()
  return (projectId: ProjectId) =>
    Effect.suspend(() => {
      const known = views.get(projectId)
      if (known !== undefined) return Deferred.await(known)
      const view = Deferred.unsafeMake<ProjectView>(FiberId.none)
      views.set(projectId, view)
      const read = Effect.all({
        project: loadProjectById(projectId),
        accounts: AccountStore.pipe(Effect.flatMap((store) => store.list(projectId))),
        paused: PublishingPauses.pipe(Effect.flatMap((pauses) => pauses.holding(projectId)), Effect.map((holding) => holding.length > 0))
      })
      return Effect.zipRight(Effect.intoDeferred(read, view), Deferred.await(view))
    })
})

/**
 * How the dispatcher reads and writes its posts: deliveries in flight together share round trips.
 * The posts of deliveries claimed together are read by one query, and intents (and outcomes) that
 * are ready together are committed by one commitAll, each still checked against its version.
 */
export interface DispatchStore {
  /** The post holding this claimed delivery, as it is now. */
  readonly read: (claim: ClaimedDelivery) => Effect.Effect<{ readonly record: PostRecord; readonly delivery: Delivery }, DeliveryNotFound>
  readonly begin: (item: BeginItem) => Effect.Effect<StepAnswer<BegunAttempt>>
  readonly finish: (item: FinishItem) => Effect.Effect<StepAnswer<PostRecord>>
}

/** At most this many deliveries per read or commit. */
const maxBatch = 256

/**
 * A DispatchStore for the life of the scope; close it after every delivery that uses it has ended.
 * An outcome waits up to `outcomeLinger` for others to share its commit (see PublishingDispatcherOptions).
 */
export const dispatchStore = (outcomeLinger: Duration.Duration) => Effect.gen(function*() {
  const store = yield* PostStore
  const readAll = yield* batching((claims: ReadonlyArray<ClaimedDelivery>) =>
    Effect.map(store.findMany(claims), (records) => {
      const byDelivery = new Map(records.flatMap((record) => record.deliveries.map((delivery) => [delivery.id, { record, delivery }] as const)))
      return claims.map((claim) => byDelivery.get(claim.deliveryId))
    }), maxBatch)
  const begin = yield* batching(beginAttempts, maxBatch)
  const finish = yield* batching(finishAttempts, maxBatch, outcomeLinger)
  return {
    read: (claim) =>
      Effect.flatMap(readAll(claim), (found) =>
        found === undefined ? Effect.fail(new DeliveryNotFound({ deliveryId: claim.deliveryId })) : Effect.succeed(found)),
    begin,
    finish
  } satisfies DispatchStore as DispatchStore
})

/** Everything a platform call for this delivery needs: the post as read for this attempt, the batch's project view. */
const prepare = Effect.fnUntraced(function*(record: PostRecord, delivery: Delivery, views: ProjectViews) {
  const { post } = record
  const { accounts, paused, project } = yield* views(post.projectId)
  const account = Option.fromNullable(accounts.find((candidate) => candidate.id === delivery.accountId))
  const found = post.mediaIds.length === 0
    ? []
    : yield* MediaLibrary.pipe(Effect.flatMap((library) => library.getMany(post.projectId, post.mediaIds)))
  const byId = new Map(found.map((item) => [item.id, item]))
  const media = post.mediaIds.flatMap((id) => byId.get(id) ?? [])
  const missingMedia = post.mediaIds.filter((id) => !byId.has(id))
  const request = Option.map(account, (account): PublishRequest => ({
    account,
    text: printedText({ ...post, accounts: [account], media }, account),
    media,
    configuration: post.platformConfigurations[account.platform],
    marker: delivery.id
  }))
  return { media, missingMedia, paused, project, request }
})

/** The call to make, or why this delivery cannot go out at all (decided before any platform call). */
const sendable = Effect.fnUntraced(function*(
  record: PostRecord,
  delivery: Delivery,
  prepared: Effect.Effect.Success<ReturnType<typeof prepare>>
) {
  const { post } = record
  const who = `${delivery.platform}:${delivery.username}`
  if (Option.isNone(prepared.request)) {
    return Either.left(failure("auth_expired", "account_disconnected", `${who} is no longer connected to this project; connect it again, then retry this delivery`))
  }
  const request = prepared.request.value
  const { status } = request.account
  if (status !== "active") {
    return Either.left(failure(
      "auth_expired",
      status === "needs_reconnect" ? "account_needs_reconnect" : "account_disconnected",
      `${who} is ${status === "needs_reconnect" ? "waiting to be reconnected" : "disconnected"}; reconnect it, then retry this delivery`
    ))
  }
  // The same engine and settings as at create time: a rule tightened since approval still holds.
  const verdict = yield* checkGuardrails(outboundTexts(post), prepared.project.guardrails, { postsToday: null })
  if (!verdict.allowed) {
    return Either.left(failure(
      "content_rejected",
      "guardrail_blocked",
      `blocked by the project's guardrails just before publishing: ${
        verdict.violations.map((violation) => `${violation.rule}: ${violation.detail}`).join("; ")
      }. A rule changed after the post was accepted; edit the words or the rule, then post again`
    ))
  }
  if (prepared.missingMedia.length > 0) {
    return Either.left(failure("media_rejected", "media_missing", `media ${prepared.missingMedia.join(", ")} no longer exists; attach it again in a new post`))
  }
  return Either.right(request)
})

const giveUp = (error: DeliveryError, attempts: number): DeliveryError => ({
  ...error,
  message: `${error.message} (gave up after ${attempts} attempts; retry the delivery when the platform recovers)`
})

/** The account's token was refused: it needs a person, and subscribers hear of it once. */
const markNeedsReconnect = Effect.fnUntraced(function*(account: SocialAccount, error: DeliveryError) {
  const marked = new SocialAccount({ ...account, status: "needs_reconnect" })
  const finding = deadLogin(account, error.message)
  const event = yield* makeEvent(account.projectId, "account.needs_reconnect", deadLoginData(marked, finding, yield* DateTime.now))
  const issue = { ...finding, id: yield* Effect.flatMap(IdGenerator, (ids) => ids.uuid) }
  yield* AccountConnections.pipe(Effect.flatMap((connections) => connections.markNeedsReconnect(account.id, event, issue)))
})

/**
 * Publishes a queued delivery: checks, intent, the call, the outcome. `record` is the post as this
 * worker last read or wrote it (the commits check its version); `delivery` names the target.
 */
/**
 * How a claim ended, said once: a structured log line (the worker events of docs/operations.md)
 * and the deliveries counter by platform and outcome. A failure is named by its category and
 * code, never its message (a platform's message may quote the post).
 */
const handled = <D extends Dispatched>(delivery: Delivery, outcome: D, error?: DeliveryError) =>
  Effect.as(
    Effect.zipRight(
      Metric.increment(Metric.tagged(Metric.tagged(deliveriesHandled, "platform", delivery.platform), "outcome", outcome)),
      Effect.logInfo(`delivery ${outcome}`).pipe(Effect.annotateLogs({
        event: `delivery.${outcome}`,
        delivery_id: delivery.id,
        platform: delivery.platform,
        ...(error === undefined ? {} : { category: error.category, code: error.code })
      }))
    ),
    outcome
  )

const publishFresh = Effect.fnUntraced(function*(claim: ClaimedDelivery, context: DispatchContext, record: PostRecord, delivery: Delivery) {
  const { calls, policy, store, views } = context
  const prepared = yield* prepare(record, delivery, views)
  // Claimed before the stop reached the claim query: left as it is, due as it was.
  if (prepared.paused) return yield* handled(delivery, "paused")
  const checked = yield* sendable(record, delivery, prepared)
  // The intent is recorded even for a refusal, so the receipt shows the attempt and its reason.
  const begun = yield* Effect.flatten(store.begin({ projectId: claim.projectId, id: claim.deliveryId, record }))
  const finish = (result: AttemptResult, at?: DateTime.Utc) =>
    Effect.flatten(store.finish({ projectId: claim.projectId, id: claim.deliveryId, result, at, record: begun.record, approval: prepared.project.approval }))
  if (Either.isLeft(checked)) {
    yield* finish(AttemptResult.Failed({ error: checked.left, retryAt: null }))
    return yield* handled(delivery, "failed", checked.left)
  }
  const request = checked.right
  const attempt = begun.delivery.attempts.length
  const publisher = (yield* Publishers).forAccount(request.account)
  const outcome = yield* calls.call(publisher.publish(request), `${request.account.platform} did not answer`)
  const now = yield* DateTime.now
  if (outcome._tag === "Right") {
    const note = outcome.right.note ?? deliveryNote(request.account, request.media, request.configuration)
    yield* finish(AttemptResult.Published({ ...outcome.right, followUpPostIds: outcome.right.followUpPostIds ?? [], note, reconciled: false }), now)
    return yield* handled(delivery, "published")
  }
  const error = outcome.left
  if (error._tag === "OutcomeUnknown") {
    yield* finish(AttemptResult.Unknown({
      error: failure("outcome_unknown", "outcome_unknown", `${error.detail}; Herald looks the post up on the platform before trying again`),
      recheckAt: DateTime.addDuration(now, policy.recheckMin)
    }), now)
    return yield* handled(delivery, "unknown")
  }
  // Only a passing failure is tried again, whatever a publisher says: a refused text, medium or
  // token fails as it would the next time.
  const retryable = error.transient && (error.error.category === "transient" || error.error.category === "rate_limited")
  if (retryable && attempt < policy.maxAttempts) {
    const delay = retryDelay(policy, attempt, error.retryAfterMs, yield* Random.next)
    yield* finish(AttemptResult.Failed({ error: error.error, retryAt: DateTime.addDuration(now, delay) }), now)
    return yield* handled(delivery, "retrying", error.error)
  }
  if (error.error.category === "auth_expired") yield* markNeedsReconnect(request.account, error.error)
  yield* finish(AttemptResult.Failed({ error: retryable ? giveUp(error.error, attempt) : error.error, retryAt: null }), now)
  return yield* handled(delivery, "failed", error.error)
})

/**
 * A delivery whose last call has no known outcome (it timed out, or its worker died mid-call):
 * look the post up by Herald's marker before anything is sent again.
 */
const reconcile = Effect.fnUntraced(function*(claim: ClaimedDelivery, context: DispatchContext, record: PostRecord, delivery: Delivery) {
  const { calls, policy, store, views } = context
  const prepared = yield* prepare(record, delivery, views)
  const finish = (result: AttemptResult) =>
    Effect.flatten(store.finish({ projectId: claim.projectId, id: claim.deliveryId, result, record, approval: prepared.project.approval }))
  const now = yield* DateTime.now
  const lastStarted = delivery.attempts.at(-1)?.startedAt ?? delivery.updatedAt
  const unknownFor = DateTime.distanceDuration(lastStarted, now)
  const who = `${delivery.platform}:${delivery.username}`
  if (Option.isNone(prepared.request)) {
    const disconnected = failure("outcome_unknown", "outcome_unconfirmed", `${who} was disconnected before Herald could confirm whether the post went out; check the account, then retry if it is missing`)
    yield* finish(AttemptResult.Failed({ error: disconnected, retryAt: null }))
    return yield* handled(delivery, "failed", disconnected)
  }
  const request = prepared.request.value
  const publisher = (yield* Publishers).forAccount(request.account)
  if (publisher.reconcile === undefined) {
    // Looking again later could not answer either: a person has to check.
    const unconfirmable = failure("outcome_unknown", "outcome_unconfirmed", `${who} is connected through the ${request.account.route} route, which cannot look posts up, so Herald cannot tell whether the post went out; check the account, then retry if it is missing`)
    yield* finish(AttemptResult.Failed({ error: unconfirmable, retryAt: null }))
    return yield* handled(delivery, "failed", unconfirmable)
  }
  const lookup = yield* calls.call(publisher.reconcile(request), `${request.account.platform} did not answer the look-up`)
  if (lookup._tag === "Left") {
    const detail = lookup.left._tag === "OutcomeUnknown" ? lookup.left.detail : lookup.left.error.message
    if (Duration.greaterThan(unknownFor, policy.giveUpUnknownAfter)) {
      const unconfirmed = failure("outcome_unknown", "outcome_unconfirmed", `Herald could not confirm for ${Duration.format(policy.giveUpUnknownAfter)} whether the post reached ${who} (${detail}); check the account, then retry if it is missing`)
      yield* finish(AttemptResult.Failed({ error: unconfirmed, retryAt: null }))
      return yield* handled(delivery, "failed", unconfirmed)
    }
    yield* finish(AttemptResult.Unknown({
      error: failure("outcome_unknown", "reconcile_failed", `the last call got no answer and looking the post up failed too (${detail}); Herald looks again later`),
      recheckAt: DateTime.addDuration(now, recheckDelay(policy, unknownFor))
    }))
    return yield* handled(delivery, "unknown")
  }
  if (Option.isSome(lookup.right)) {
    const found = lookup.right.value
    const note = found.note ?? deliveryNote(request.account, request.media, request.configuration)
    yield* finish(AttemptResult.Published({ ...found, followUpPostIds: found.followUpPostIds ?? [], note, reconciled: true }))
    return yield* handled(delivery, "reconciled")
  }
  // Not on the platform: the call never landed. A worker that died mid-call left its attempt
  // open; close it for what it was before the next one starts.
  if (delivery.status === "publishing") {
    const closed = yield* finish(AttemptResult.Failed({
      error: failure("outcome_unknown", "worker_lost", `the worker stopped during the call and ${who} holds no post from it; sending again`),
      retryAt: now
    }))
    return yield* publishFresh(claim, context, closed, delivery)
  }
  return yield* publishFresh(claim, context, record, delivery)
})

/**
 * What handling a delivery needs besides the claim: the retry policy, the store, the platform
 * calls under policy.publishTimeout, the batch's project views.
 */
export interface DispatchContext {
  readonly policy: DispatchPolicy
  readonly calls: PlatformCalls
  readonly store: DispatchStore
  readonly views: ProjectViews
}

/**
 * What a worker does with one claimed delivery. Every path ends in an outcome (success, failure
 * with a reason, or unknown with a recheck time), so nothing waits without a reason.
 */
export const dispatchDelivery = Effect.fnUntraced(
  function*(claim: ClaimedDelivery, context: DispatchContext) {
    const { delivery, record } = yield* context.store.read(claim)
    switch (delivery.status) {
      case "queued":
        return yield* publishFresh(claim, context, record, delivery)
      case "unknown":
      case "publishing":
        return yield* reconcile(claim, context, record, delivery)
      default:
        return "skipped" as const
    }
  },
  // Removed meanwhile, or another worker got there first: nothing of ours to record.
  Effect.catchTags({
    DeliveryNotFound: () => Effect.succeed("skipped" as const),
    DeliveryNotDue: () => Effect.succeed("skipped" as const),
    StateConflict: (conflict) => Effect.die(conflict)
  })
)
