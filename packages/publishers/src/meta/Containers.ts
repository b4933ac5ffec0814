/**
 * Meta's container flow (Threads, Instagram): create a media container, wait until Meta has
 * fetched and processed what it names (its status FINISHED), then publish it. The container's id
 * is recorded (PublishCheckpoints, by delivery) before any wait, so an attempt cut short (a crash,
 * the dispatcher's deadline, a timeout) resumes on that container and never creates a second;
 * a container that Meta reports PUBLISHED means an earlier attempt's publish landed, and the post
 * is looked up (reconcile) rather than published again.
 */
import { OutcomeUnknown, type PlatformCallFailed, PublishCheckpoints, type PublishFailed } from "@herald/core"
import { Clock, Data, Duration, Effect, Option, Schema } from "effect"
import { type PlatformCallError, PlatformRefusal, publishFailure, publishFailureOfRead } from "../kit/index.js"

/** A container's status_code (Instagram) or status (Threads). */
export const ContainerState = Schema.Literal("IN_PROGRESS", "FINISHED", "PUBLISHED", "ERROR", "EXPIRED")
export type ContainerState = typeof ContainerState.Type

export interface ContainerStatus {
  readonly state: ContainerState
  /** Meta's reason for ERROR (FAILED_DOWNLOADING_VIDEO, INVALID_ASPEC_RATIO, ...), when it gives one. */
  readonly errorMessage: string | null
}

/** The container was published by an earlier attempt: the post exists; look it up, do not publish again. */
export class ContainerPublished extends Data.TaggedError("ContainerPublished")<{ readonly container: string }> {}

/** How long Meta may take to make a container FINISHED before the attempt fails as transient. */
export const processingLimit = (video: boolean): Duration.Duration => Duration.minutes(video ? 30 : 10)

/**
 * How long one attempt waits on a container before handing the delivery back to be tried again
 * (the container kept): under the dispatcher's deadline for one publish call (30 seconds).
 */
export const attemptWait = Duration.seconds(20)

/** The pause between status reads: short at first (text is FINISHED at once), then every 5 seconds. */
const pause = (read: number) => Duration.millis(Math.min(5000, 250 * 2 ** read))

/** What is recorded of a container: its id, when Herald created it, and whether it holds video. */
const Recorded = Schema.parseJson(Schema.Struct({ container: Schema.String, createdAt: Schema.Number, video: Schema.Boolean }))
type Recorded = typeof Recorded.Type

const transientRefusal = (code: string, message: string, retryAfterMs: number | null = null) =>
  new PlatformRefusal({ error: { category: "transient", code, message }, retryAfterMs })

type Failure = PlatformCallError | PlatformCallFailed

/**
 * Reads the container's status until FINISHED: ERROR is the media's (or the text's) refusal with
 * Meta's reason, EXPIRED (not published within 24 hours) and a container still processing past
 * processingLimit are transient, and one still processing when this attempt's wait is over is
 * transient with a short Retry-After (the next attempt resumes on it). PUBLISHED is
 * ContainerPublished.
 */
export const awaitFinished = <R>(
  network: string,
  status: (container: string) => Effect.Effect<ContainerStatus, Failure, R>,
  recorded: Recorded,
  refusedAs: "media_rejected" | "content_rejected"
): Effect.Effect<void, Failure | ContainerPublished, R> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const limitMs = Duration.toMillis(processingLimit(recorded.video))
    for (let read = 0;; read++) {
      const now = yield* Clock.currentTimeMillis
      const seen = yield* status(recorded.container)
      switch (seen.state) {
        case "FINISHED":
          return
        case "PUBLISHED":
          return yield* new ContainerPublished({ container: recorded.container })
        case "ERROR":
          return yield* new PlatformRefusal({
            error: {
              category: refusedAs,
              code: seen.errorMessage ?? "container_error",
              message: `${network} could not process container ${recorded.container}: ${seen.errorMessage ?? "no reason given"}`
            },
            retryAfterMs: null
          })
        case "EXPIRED":
          return yield* transientRefusal("container_expired", `${network} let container ${recorded.container} expire unpublished (24 hours); a new one is made on the next attempt`)
        case "IN_PROGRESS":
          if (now - recorded.createdAt >= limitMs) {
            return yield* transientRefusal(
              "container_timeout",
              `${network} had not finished processing container ${recorded.container} after ${Duration.format(processingLimit(recorded.video))}; a new one is made on the next attempt`
            )
          }
          if (now - started >= Duration.toMillis(attemptWait)) {
            return yield* transientRefusal(
              "container_processing",
              `${network} is still processing container ${recorded.container}; the next attempt waits on the same container`,
              Duration.toMillis(attemptWait)
            )
          }
          yield* Effect.sleep(pause(read))
      }
    }
  })

export interface ContainerCalls<A, R> {
  /** Creates the container (and, for a carousel, its finished children first); answers its id. */
  readonly create: Effect.Effect<string, Failure | ContainerPublished, R>
  readonly status: (container: string) => Effect.Effect<ContainerStatus, Failure, R>
  /** Publishes the FINISHED container. */
  readonly publish: (container: string) => Effect.Effect<A, Failure, R>
}

/** Codes after which the recorded container is no use: the next attempt starts a new one. */
const spent = new Set(["container_expired", "container_timeout"])

/**
 * The flow for one delivery: resumes on the container recorded for it, or creates one and
 * records it before waiting; waits until FINISHED; publishes; forgets the container once
 * published or once it can never be (ERROR, EXPIRED, past processingLimit).
 */
export const publishThroughContainer = <A, R>(
  options: {
    readonly network: string
    readonly deliveryId: string
    readonly video: boolean
    readonly refusedAs: "media_rejected" | "content_rejected"
  },
  calls: ContainerCalls<A, R>
): Effect.Effect<A, Failure | ContainerPublished, R | PublishCheckpoints> =>
  Effect.gen(function*() {
    const checkpoints = yield* PublishCheckpoints
    const earlier = yield* recordedContainer(options.deliveryId)
    let recorded: Recorded
    if (Option.isSome(earlier)) {
      recorded = earlier.value
    } else {
      const container = yield* calls.create
      recorded = { container, createdAt: yield* Clock.currentTimeMillis, video: options.video }
      yield* checkpoints.put(options.deliveryId, Schema.encodeSync(Recorded)(recorded))
    }
    const forget = checkpoints.clear(options.deliveryId)
    yield* awaitFinished(options.network, calls.status, recorded, options.refusedAs).pipe(
      Effect.tapError((failure) =>
        failure._tag === "PlatformRefusal" && (failure.error.category !== "transient" || spent.has(failure.error.code)) ? forget : Effect.void
      )
    )
    const published = yield* calls.publish(recorded.container)
    yield* forget
    return published
  })

/** The container recorded for a delivery, if an earlier attempt created one. */
export const recordedContainer = (deliveryId: string): Effect.Effect<Option.Option<Recorded>, never, PublishCheckpoints> =>
  Effect.map(
    Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.get(deliveryId)),
    Option.flatMap(Schema.decodeOption(Recorded))
  )

/** What Meta answers a container's creation and its publish with: the new object's id. */
export const CreatedId = Schema.Struct({ id: Schema.String })

/** A published post's permalink (`?fields=id,permalink`). */
export const Permalink = Schema.Struct({ id: Schema.String, permalink: Schema.optional(Schema.String) })

/** The publishing quota's read (Instagram's content_publishing_limit, Threads' threads_publishing_limit). */
export const PublishingLimit = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    quota_usage: Schema.Number,
    config: Schema.optional(Schema.Struct({ quota_total: Schema.Number, quota_duration: Schema.Number }))
  }))
})

/** When the account's posts of the window cannot be read, Herald asks again in an hour. */
const limitFallbackMs = 60 * 60 * 1000

/**
 * A publishing limit used up (Instagram's 25 and Threads' 250 posts in a moving 24 hours): refused
 * as rate_limited until the oldest post of the window ages out. Neither API says when that is, so
 * `postedSince` reads the account's own posts since the window began (their publication times).
 */
export const publishingLimitReached = <E, R>(
  limit: { readonly network: string; readonly code: string; readonly total: number; readonly used: number; readonly windowMs: number },
  postedSince: (sinceMillis: number) => Effect.Effect<ReadonlyArray<number>, E, R>
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const since = now - limit.windowMs
    const posted = (yield* postedSince(since).pipe(Effect.orElseSucceed((): ReadonlyArray<number> => []))).filter((at) => at >= since)
    const resetMs = posted.length === 0 ? limitFallbackMs : Math.max(0, Math.min(...posted) + limit.windowMs - now)
    return yield* new PlatformRefusal({
      error: {
        category: "rate_limited",
        code: limit.code,
        message: `${limit.network} accounts publish at most ${limit.total} posts in 24 hours through the API and this one has used ${limit.used}; the next slot opens in ${Math.ceil(resetMs / 60000)} minutes`
      },
      retryAfterMs: resetMs
    })
  })

/**
 * The permalink of a post just published, read once: undefined when the read fails, since the
 * post exists and a receipt without its permalink beats a failure that would post again.
 */
export const permalinkOrNone = <E, R>(read: Effect.Effect<typeof Permalink.Type, E, R>): Effect.Effect<string | undefined, never, R> =>
  read.pipe(Effect.map((post) => post.permalink), Effect.orElseSucceed(() => undefined))

/**
 * A container publish's failures as the Publisher port's: a container an earlier attempt
 * published is an unknown outcome (reconcile finds the post), a failed read of the flow is
 * classified as a publish failure.
 */
export const asContainerPublish = (network: string) =>
<A, R>(
  publish: Effect.Effect<A, PlatformCallError | PlatformCallFailed | ContainerPublished, R>
): Effect.Effect<A, PublishFailed | OutcomeUnknown, R> =>
  publish.pipe(
    Effect.catchTag("ContainerPublished", (published) =>
      Effect.fail(new OutcomeUnknown({ detail: `${network} reports container ${published.container} published by an earlier attempt` }))),
    Effect.mapError((error) =>
      error._tag === "OutcomeUnknown" ? error : error._tag === "PlatformCallFailed" ? publishFailureOfRead(error) : publishFailure(error)
    )
  )

/**
 * Reconcile over the container flow: a container recorded for the delivery and not PUBLISHED says
 * the post is not there (the next attempt resumes on it); otherwise `lookUp` searches the
 * account's posts, and a post found spends the recorded container, so no later attempt reads it.
 */
export const reconcileContainer = <A, E, R, R2>(
  deliveryId: string,
  status: (container: string) => Effect.Effect<ContainerStatus, E, R>,
  lookUp: Effect.Effect<Option.Option<A>, E, R2>
): Effect.Effect<Option.Option<A>, E, R | R2 | PublishCheckpoints> =>
  Effect.gen(function*() {
    const recorded = yield* recordedContainer(deliveryId)
    if (Option.isSome(recorded) && (yield* status(recorded.value.container)).state !== "PUBLISHED") return Option.none()
    const found = yield* lookUp
    if (Option.isSome(found) && Option.isSome(recorded)) yield* Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.clear(deliveryId))
    return found
  })
