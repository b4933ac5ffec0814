import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import {
  DeliveryId,
  DeliveryQueue,
  EventId,
  type EventKind,
  OutboxEvent,
  OutboxQueue,
  PostChange,
  PostStore,
  ProjectAdmin,
  PublishingPause,
  PublishingPauses,
  WebhookEndpoints
} from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted, Ref, Schedule, Stream, TestServices } from "effect"
import { randomUUID } from "node:crypto"
import { storageContract } from "./contract.js"
import { newEndpoint, newPost, newProject, storageOnThrowawaySchema, t0 } from "./fixtures.js"

const url = process.env.DATABASE_URL ?? ""

describe.skipIf(url === "")("on a PostgreSQL server (needs DATABASE_URL)", () => {
  // Built only when the suite runs: the suite is collected without DATABASE_URL too.
  const storage = () => Layer.suspend(() => storageOnThrowawaySchema(url))

  storageContract("PostgreSQL", storage())

  layer(storage(), { timeout: 30_000 })("PostgreSQL claims", (it) => {
    it.effect("a claim reads its due deliveries in index order, even from a table never analyzed", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const queue = yield* DeliveryQueue
        const sql = yield* SqlClient.SqlClient
        const project = newProject()
        const backlog = 5_000
        yield* Effect.forEach(
          Array.from({ length: backlog }, () => newPost({ projectId: project.id, deliveries: 1, deliveryStatus: "queued", dueAt: t0 })),
          (input) => posts.create(input),
          { concurrency: 64, discard: true }
        )
        // The statistics of the claim's index, as they stand once this backend's are flushed.
        const entriesRead = sql.withTransaction(Effect.zipRight(
          sql`SELECT pg_stat_force_next_flush()`,
          sql<{ readonly read: number }>`SELECT idx_tup_read::int AS read FROM pg_stat_user_indexes WHERE indexrelname = 'deliveries_claimable'`
        )).pipe(Effect.map((rows) => rows[0]!.read), Effect.orDie)
        const before = yield* entriesRead
        const claimed = yield* sql.withTransaction(Effect.tap(
          queue.claimDue({ now: DateTime.add(t0, { minutes: 1 }), limit: 10, leaseMillis: 60_000, worker: "w" }),
          () => Effect.orDie(sql`SELECT pg_stat_force_next_flush()`)
        ))
        expect(claimed).toHaveLength(10)
        // A bitmap scan and a sort read every due delivery's entry (5,000 before migration 0008).
        expect((yield* entriesRead) - before).toBeLessThan(100)
      }))
  })

  layer(storage(), { timeout: 30_000 })("PostgreSQL writes", (it) => {
    it.effect("an update writes the deliveries that changed, inserts new ones and leaves the others' rows alone", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const sql = yield* SqlClient.SqlClient
        const project = newProject()
        const input = newPost({ projectId: project.id, deliveries: 2 })
        yield* posts.create(input)
        const [first, second] = input.record.deliveries
        const versions = Effect.orDie(sql<{ readonly id: string; readonly xmin: string }>`
          SELECT id, xmin::text FROM deliveries WHERE post_id = ${input.record.post.id}`).pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.id, row.xmin])))
        )
        const before = yield* versions
        const added = first!.with({ id: DeliveryId.make(randomUUID()), status: "queued" })
        const changed = second!.with({ status: "success", url: "https://x.test/2", updatedAt: DateTime.add(t0, { minutes: 1 }) })
        yield* posts.commit(PostChange.Update({
          expectedVersion: 1,
          record: { post: input.record.post.with({ version: 2 }), deliveries: [first!, changed, added] },
          events: []
        }))
        const after = yield* versions
        expect(after.get(first!.id)).toBe(before.get(first!.id))
        expect(after.get(second!.id)).not.toBe(before.get(second!.id))
        expect(after.has(added.id)).toBe(true)
        const record = Option.getOrThrow(yield* posts.find(project.id, input.record.post.id))
        expect(record.deliveries.map((delivery) => [delivery.id, delivery.status, delivery.url])).toEqual([
          [first!.id, first!.status, null],
          [second!.id, "success", "https://x.test/2"],
          [added.id, "queued", null]
        ])
      }))

    it.scoped("the outbox wakes senders only for events fanned out to some endpoint", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const posts = yield* PostStore
        const outbox = yield* OutboxQueue
        const project = newProject()
        yield* Effect.flatMap(ProjectAdmin, (admin) => admin.create(project))
        yield* Effect.flatMap(WebhookEndpoints, (endpoints) =>
          endpoints.create(
            newEndpoint(project.id),
            Redacted.make("whsec_topsecret")
          ))
        const event = (kind: EventKind) =>
          new OutboxEvent({ id: EventId.make(randomUUID()), projectId: project.id, kind, createdAt: DateTime.add(t0, { days: 3 }), data: {} })
        const heard = yield* Ref.make(0)
        yield* Effect.forkScoped(Stream.runForEach(outbox.wakeups, () => Ref.update(heard, (n) => n + 1)))
        const heardOne = Effect.repeat(Ref.get(heard), { until: (n) => n > 0, schedule: Schedule.spaced("10 millis") }).pipe(Effect.timeout("2 seconds"))
        // LISTEN starts asynchronously: create posts with a subscribed event until one is heard.
        for (let tries = 0; tries < 50 && (yield* Ref.get(heard)) === 0; tries++) {
          yield* posts.create({ ...newPost({ projectId: project.id }), events: [event("post.published")] })
          yield* Effect.sleep("20 millis")
        }
        yield* heardOne
        yield* Effect.sleep("200 millis")
        yield* Ref.set(heard, 0)

        // No endpoint takes post.failed: a create (batched) and an update write it, and wake no one.
        const input = newPost({ projectId: project.id })
        yield* posts.create({ ...input, events: [event("post.failed")] })
        const update = (version: number, kind: EventKind) =>
          posts.commit(PostChange.Update({
            expectedVersion: version,
            record: { post: input.record.post.with({ version: version + 1 }), deliveries: input.record.deliveries },
            events: [event(kind)]
          }))
        yield* update(1, "post.failed")
        // Notices arrive in commit order: once this one is heard, any of the writes before it would have been.
        yield* update(2, "post.published")
        yield* heardOne
        yield* Effect.sleep("100 millis")
        expect(yield* Ref.get(heard)).toBe(1)
        const [{ n }] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.orDie(sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM outbox_events WHERE project_id = ${project.id} AND kind = 'post.failed'`))
        expect(n).toBe(2)
      })))
  })

  layer(storage(), { timeout: 30_000 })("PostgreSQL emergency stop", (it) => {
    it.effect("pauses of one scope sent at once each answer the pause that stands, never nothing", () =>
      Effect.gen(function*() {
        const pauses = yield* PublishingPauses
        const stood = yield* Effect.forEach(
          Array.from({ length: 24 }, (_, i) => i),
          (i) => pauses.pause(PublishingPause.make({ projectId: null, pausedAt: t0, reason: `pause ${i}` })),
          { concurrency: "unbounded" }
        )
        expect(new Set(stood.map((pause) => pause.reason)).size).toBe(1)
        expect(Option.isSome(yield* pauses.resume(null))).toBe(true)
      }))
  })
})
