import { randomUUID } from "node:crypto"
import {
  type ClaimedSend,
  OutboxQueue,
  OutboxSendOutcome,
  ProjectStore,
  secretsInForce,
  traced,
  WebhookAttempt,
  WebhookDeliveryLog,
  WorkerHeartbeats
} from "@herald/core"
import type { OutboundGuard } from "@herald/outbound"
import { Cause, DateTime, Duration, Effect, FiberSet, Layer, Option, Queue, Stream } from "effect"
import { disableAfterGiveUps, scheduleRetry } from "./RetrySchedule.js"
import { EndpointVerdict, send, type SendResult, signingKeys, webhookTimeout } from "./Sender.js"
import { makeWebhookRequest } from "./WebhookRequest.js"

export interface WebhookDispatcherOptions {
  /** The lease owner's name; unique per process (a random one by default). */
  readonly worker?: string
  /** Sends in flight at once. */
  readonly concurrency?: number
  /** How long a claim holds: longer than one attempt, so a live sender never loses its lease. */
  readonly leaseMillis?: number
  /** How often the queue is polled when no wake-up arrives. */
  readonly pollInterval?: Duration.DurationInput
  /** The whole-exchange deadline of one attempt. */
  readonly timeout?: Duration.DurationInput
}

const attemptOutcome = { Sent: "sent", Retry: "retry", GaveUp: "given_up" } as const

const reasonOf = (result: SendResult): string | null =>
  EndpointVerdict.$match(result.outcome, { Accepted: () => null, Rejected: ({ reason }) => reason })

/**
 * The queue's verdict on one attempt: accepted; or another try at the schedule's next time; or,
 * past the last retry, given up (the endpoint shows the reason and its streak grows).
 */
const verdict = Effect.fnUntraced(function*(attempt: number, result: SendResult) {
  const at = yield* DateTime.now
  const reason = reasonOf(result)
  if (reason === null) return OutboxSendOutcome.Sent({ at })
  return Option.match(yield* scheduleRetry(attempt), {
    onSome: (dueAt) => OutboxSendOutcome.Retry({ at, dueAt, error: reason }),
    onNone: () =>
      OutboxSendOutcome.GaveUp({ at, error: `gave up after ${attempt} attempts: ${reason}`, disableAfter: disableAfterGiveUps })
  })
})

/** The kind the webhook sender reports under in WorkerHeartbeats (GET /health). */
export const webhookWorkerKind = "webhooks"

const make = Effect.fnUntraced(function*(options: WebhookDispatcherOptions) {
  const queue = yield* OutboxQueue
  const projects = yield* ProjectStore
  const log = yield* WebhookDeliveryLog
  const worker = options.worker ?? `webhooks-${randomUUID()}`
  const concurrency = options.concurrency ?? 16
  const leaseMillis = options.leaseMillis ?? 60_000
  const pollInterval = options.pollInterval ?? Duration.seconds(1)
  const timeout = options.timeout ?? webhookTimeout

  /** One attempt of one claimed send, its log entry and its outcome. */
  const deliver = traced("WebhookDispatcher.deliver")(function*(claimed: ClaimedSend) {
    const { endpoint, event } = claimed
    const project = yield* projects.get(event.projectId)
    // Endpoints and their sends are deleted with the project, so this is a race with that delete.
    if (Option.isNone(project)) return
    const request = makeWebhookRequest(event, project.value, endpoint.id)
    const attempt = claimed.attempts + 1
    // Interrupted mid-send (shutdown), the lease lapses and another sender repeats the attempt;
    // once an answer is in hand, it is recorded whatever happens.
    yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const result = yield* restore(send({ url: endpoint.url, secret: signingKeys(secretsInForce(endpoint.secrets, yield* DateTime.now)) }, request, { timeout }))
        const outcome = yield* verdict(attempt, result)
        yield* log.record(
          new WebhookAttempt({
            projectId: event.projectId,
            endpointId: endpoint.id,
            eventId: event.id,
            kind: event.kind,
            deliveryId: request.deliveryId,
            attempt,
            at: outcome.at,
            statusCode: Option.getOrNull(result.status),
            latencyMs: result.latencyMs,
            responsePrefix: result.bodyPrefix,
            error: reasonOf(result),
            outcome: attemptOutcome[outcome._tag]
          })
        )
        yield* queue.complete(claimed.sendId, worker, outcome)
      })
    )
  }, (effect, claimed) =>
    // One bad send must not stop the others; its lease lapses and it is tried again.
    Effect.catchAllCause(effect, (cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.logError("webhook send failed unexpectedly; it is retried when its lease lapses", cause).pipe(
          Effect.annotateLogs({ endpoint: claimed.endpoint.id, event: claimed.event.id })
        )))

  // One token per free sending slot: the loop claims only as many sends as it can start now, so
  // a slow endpoint holds one slot rather than a whole batch.
  const tokens = (count: number) => Array.from({ length: count }, () => undefined)
  const slots = yield* Queue.bounded<void>(concurrency)
  yield* Queue.offerAll(slots, tokens(concurrency))
  const running = yield* FiberSet.make()

  const wake = yield* Queue.sliding<void>(1)
  yield* queue.wakeups.pipe(Stream.runForEach(() => Queue.offer(wake, undefined)), Effect.forkScoped)

  /** Waits for a free slot, claims up to the free slots and starts each send; true when all found work. */
  const poll = Effect.gen(function*() {
    yield* Queue.take(slots)
    const free = 1 + (yield* Queue.takeAll(slots)).length
    const claimed = yield* queue.claimDue({ now: yield* DateTime.now, limit: free, leaseMillis, worker }).pipe(
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : Effect.as(Effect.logError("claiming webhook sends failed; polling again", cause), [])
      )
    )
    yield* Queue.offerAll(slots, tokens(free - claimed.length))
    for (const claim of claimed) {
      yield* FiberSet.run(running, Effect.ensuring(deliver(claim), Queue.offer(slots, undefined)))
    }
    return claimed.length === free
  })

  const beat = yield* WorkerHeartbeats.every(worker, webhookWorkerKind, Duration.seconds(5))
  // Straight on while there is more work than slots; otherwise until a wake-up or the next poll.
  const loop = Effect.forever(
    Effect.zipRight(
      beat,
      Effect.flatMap(poll, (full) => full ? Effect.void : Effect.race(Queue.take(wake), Effect.sleep(pollInterval)))
    )
  )

  yield* Effect.forkScoped(loop)
  yield* Effect.logDebug("webhook dispatcher started").pipe(Effect.annotateLogs({ worker }))
})

/**
 * The webhook sender as a scoped background worker: polls OutboxQueue (waking early on its
 * wake-ups), sends each claimed event to its endpoint through the OutboundGuard, logs every
 * attempt in WebhookDeliveryLog and reports the outcome to the queue (sent, retry at the
 * schedule's next time, or given up). Closing the scope stops it; sends cut short are repeated by
 * the next sender once their leases lapse, with the same delivery id.
 */
export const WebhookDispatcher = {
  layer: (
    options: WebhookDispatcherOptions = {}
  ): Layer.Layer<never, never, OutboxQueue | ProjectStore | WebhookDeliveryLog | WorkerHeartbeats | OutboundGuard> =>
    Layer.scopedDiscard(make(options))
}
