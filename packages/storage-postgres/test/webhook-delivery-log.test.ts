import { expect, layer } from "@effect/vitest"
import {
  EventId,
  OutboxEvent,
  OutboxQueue,
  PostStore,
  ProjectAdmin,
  OutboxSendOutcome,
  WebhookAttempt,
  WebhookDeliveryLog,
  WebhookEndpoints
} from "@herald/core"
import { DateTime, Effect, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { StorageLive } from "../src/index.js"
import { embeddedDataDir } from "./EmbeddedSnapshot.js"
import { at, credentialsKey, newEndpoint, newPost, newProject, t0 } from "./fixtures.js"

const dataDir = embeddedDataDir("herald-delivery-log-")

/** A project with one endpoint and one event queued for it. */
const queuedEvent = Effect.gen(function*() {
  const project = newProject()
  yield* Effect.flatMap(ProjectAdmin, (admin) => admin.create(project))
  const endpoint = newEndpoint(project.id)
  yield* Effect.flatMap(WebhookEndpoints, (endpoints) => endpoints.create(endpoint, Redacted.make("whsec_log")))
  const event = new OutboxEvent({ id: EventId.make(randomUUID()), projectId: project.id, kind: "post.published", createdAt: t0, data: {} })
  yield* Effect.flatMap(PostStore, (posts) => posts.create({ ...newPost({ projectId: project.id }), events: [event] }))
  return { project, endpoint, event }
})

const attempt = (fields: Pick<WebhookAttempt, "projectId" | "endpointId" | "eventId" | "attempt" | "at" | "outcome">) =>
  new WebhookAttempt({
    ...fields,
    kind: "post.published",
    deliveryId: randomUUID(),
    statusCode: fields.outcome === "sent" ? 200 : 503,
    latencyMs: 12,
    responsePrefix: "nul \u0000 byte",
    error: fields.outcome === "sent" ? null : "the endpoint answered 503"
  })

layer(StorageLive.layer({ databaseUrl: Option.none(), dataDir, credentialsKey }), { timeout: 60_000 })("WebhookDeliveryLog", (it) => {
  it.effect("lists an endpoint's attempts newest first, by event, and only within its project", () =>
    Effect.gen(function*() {
      const log = yield* WebhookDeliveryLog
      const { endpoint, event, project } = yield* queuedEvent
      const other = yield* queuedEvent
      const ids = { projectId: project.id, endpointId: endpoint.id }
      yield* log.record(attempt({ ...ids, eventId: event.id, attempt: 1, at: t0, outcome: "retry" }))
      yield* log.record(attempt({ ...ids, eventId: event.id, attempt: 2, at: at("2030-01-15T10:01:00.000Z"), outcome: "sent" }))
      yield* log.record(attempt({ projectId: other.project.id, endpointId: other.endpoint.id, eventId: other.event.id, attempt: 1, at: t0, outcome: "sent" }))

      const listed = yield* log.list(project.id, endpoint.id, { limit: 10 })
      expect(listed.map((entry) => [entry.attempt, entry.outcome, entry.statusCode])).toEqual([[2, "sent", 200], [1, "retry", 503]])
      expect(listed[0]!.responsePrefix).toBe("nul \uFFFD byte")
      expect(yield* log.list(project.id, endpoint.id, { limit: 1 })).toHaveLength(1)
      expect(yield* log.list(project.id, endpoint.id, { limit: 10, eventId: other.event.id })).toEqual([])
      const foreign = yield* Effect.flip(log.list(other.project.id, endpoint.id, { limit: 10 }))
      expect(foreign._tag).toBe("WebhookEndpointNotFound")
    }))

  it.effect("resends only a given-up event, due at once with a fresh schedule", () =>
    Effect.gen(function*() {
      const log = yield* WebhookDeliveryLog
      const outbox = yield* OutboxQueue
      const { endpoint, event, project } = yield* queuedEvent
      const resend = log.resend(project.id, endpoint.id, event.id, at("2030-01-20T00:00:00.000Z")).pipe(
        Effect.flip,
        Effect.map((error) => error.message)
      )
      expect(yield* resend).toBe(`event ${event.id} is still being delivered; only a given-up event can be resent`)
      const unknown = EventId.make(randomUUID())
      expect(yield* Effect.flip(log.resend(project.id, endpoint.id, unknown, t0))).toMatchObject({ _tag: "WebhookSendNotFound" })

      const claim = (now: DateTime.Utc) =>
        outbox.claimDue({ now, limit: 100, leaseMillis: 60_000, worker: "w" }).pipe(
          Effect.map((sends) => sends.filter((send) => send.endpoint.id === endpoint.id))
        )
      const [send] = yield* claim(t0)
      yield* outbox.complete(send!.sendId, "w", OutboxSendOutcome.GaveUp({ at: t0, error: "gave up", disableAfter: 10 }))
      expect(yield* claim(at("2030-01-19T00:00:00.000Z"))).toEqual([])

      yield* log.resend(project.id, endpoint.id, event.id, at("2030-01-20T00:00:00.000Z"))
      const [again] = yield* claim(at("2030-01-20T00:00:00.000Z"))
      expect(again!.event.id).toBe(event.id)
      expect(again!.attempts).toBe(0)
      yield* outbox.complete(again!.sendId, "w", OutboxSendOutcome.Sent({ at: at("2030-01-20T00:00:01.000Z") }))
      expect(yield* resend).toBe(`event ${event.id} was delivered; only a given-up event can be resent`)
    }))
})
