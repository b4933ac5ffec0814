import { describe, expect, it } from "@effect/vitest"
import {
  AttemptResult,
  beginAttempts,
  createPost,
  type DeliveryId,
  finishAttempts,
  foreignTextLimit,
  PostChange,
  type PostRecord,
  PostStore,
  type PostUpdate
} from "@herald/core"
import { DateTime, Effect, Either } from "effect"
import { makeWorld } from "./World.js"

const published = (id: string) => AttemptResult.Published({ platformPostId: `p-${id}`, url: `https://x.test/${id}`, note: null, followUpPostIds: [], reconciled: false })

/** A world with `posts` posts published now to x and bluesky (so their deliveries are queued). */
const setup = (posts: number) =>
  Effect.gen(function*() {
    const world = makeWorld({ approval: "autopilot", platforms: ["x", "bluesky"] })
    const records = yield* Effect.forEach(Array.from({ length: posts }, (_, index) => index), (index) =>
      createPost(world.human, { caption: `post ${index}`, social_accounts: ["x:acme_x", "bluesky:acme_bluesky"] }).pipe(
        Effect.map((created) => created.record)
      )).pipe(Effect.provide(world.layer))
    return { world, records }
  })

describe("the in-memory PostStore.commitAll", () => {
  it.effect("writes the fresh changes with their events and returns the stale ones, which write nothing", () =>
    Effect.gen(function*() {
      const { records, world } = yield* setup(3)
      const [a, b, c] = records
      const store = yield* PostStore.pipe(Effect.provide(world.layer))
      yield* store.commit(PostChange.Update({ expectedVersion: b!.post.version, record: { ...b!, post: b!.post.with({ version: b!.post.version + 1, caption: "first" }) }, events: [] }))
      const outboxBefore = world.data.outbox.length
      const update = (record: PostRecord) =>
        PostChange.Update({ expectedVersion: record.post.version, record: { ...record, post: record.post.with({ version: record.post.version + 1, caption: "batch" }) }, events: [] }) as PostUpdate
      const stale = yield* store.commitAll([update(a!), update(b!), update(c!)])
      expect(stale.map((error) => error.postId)).toEqual([b!.post.id])
      expect([a!, b!, c!].map((record) => world.data.posts.get(record.post.id)!.post.caption)).toEqual(["batch", "first", "batch"])
      expect(world.data.outbox.length).toBe(outboxBefore)
    }))
})

describe("beginAttempts and finishAttempts", () => {
  it.effect("fold the steps of one post into one version and settle it once, with one event", () =>
    Effect.gen(function*() {
      const { records, world } = yield* setup(2)
      const outboxBefore = world.data.outbox.length
      const items = records.flatMap((record) => record.deliveries.map((delivery) => ({ projectId: world.projectId, id: delivery.id, record })))
      const begun = yield* beginAttempts(items).pipe(Effect.provide(world.layer))
      expect(begun.every(Either.isRight)).toBe(true)
      for (const record of records) {
        const stored = world.data.posts.get(record.post.id)!
        expect(stored.post.version).toBe(record.post.version + 1)
        expect(stored.post.status).toBe("processing")
        expect(stored.deliveries.map((delivery) => delivery.status)).toEqual(["publishing", "publishing"])
      }
      const finished = yield* finishAttempts(begun.map((answer, index) => ({
        projectId: world.projectId,
        id: items[index]!.id,
        record: Either.getOrThrow(answer).record,
        result: published(items[index]!.id)
      }))).pipe(Effect.provide(world.layer))
      expect(finished.every(Either.isRight)).toBe(true)
      for (const record of records) {
        const stored = world.data.posts.get(record.post.id)!
        expect(stored.post.version).toBe(record.post.version + 2)
        expect(stored.post.status).toBe("posted")
        expect(stored.deliveries.every((delivery) => delivery.status === "success")).toBe(true)
      }
      expect(world.data.outbox.slice(outboxBefore).map((event) => event.kind)).toEqual(["post.published", "post.published"])
    }))

  it.effect("an outcome given the time the platform answered ends its attempt then, not when it was written", () =>
    Effect.gen(function*() {
      const { records, world } = yield* setup(1)
      const [record] = records
      const items = record!.deliveries.map((delivery) => ({ projectId: world.projectId, id: delivery.id, record: record! }))
      const begun = yield* beginAttempts(items).pipe(Effect.provide(world.layer))
      const answeredAt = DateTime.unsafeMake("2020-01-01T00:00:00.000Z")
      yield* finishAttempts(begun.map((answer, index) => ({
        projectId: world.projectId,
        id: items[index]!.id,
        record: Either.getOrThrow(answer).record,
        result: published(items[index]!.id),
        ...(index === 0 ? { at: answeredAt } : {})
      }))).pipe(Effect.provide(world.layer))
      const [first, second] = world.data.posts.get(record!.post.id)!.deliveries
      expect(first!.attempts[0]!.finishedAt).toEqual(answeredAt)
      expect(second!.attempts[0]!.finishedAt).not.toEqual(answeredAt)
      expect(second!.attempts[0]!.finishedAt).not.toBeNull()
    }))

  it.effect("a platform's error text is kept storable: no NUL, no lone surrogate, no page-long message", () =>
    Effect.gen(function*() {
      const { records, world } = yield* setup(1)
      const [record] = records
      const items = record!.deliveries.map((delivery) => ({ projectId: world.projectId, id: delivery.id, record: record! }))
      const begun = yield* beginAttempts(items).pipe(Effect.provide(world.layer))
      const reply = `<html>\u0000${"x".repeat(100_000)}`
      yield* finishAttempts(begun.map((answer, index) => ({
        projectId: world.projectId,
        id: items[index]!.id,
        record: Either.getOrThrow(answer).record,
        result: AttemptResult.Failed({ error: { category: "transient", code: "bad\ud800", message: reply }, retryAt: null })
      }))).pipe(Effect.provide(world.layer))
      for (const delivery of world.data.posts.get(record!.post.id)!.deliveries) {
        expect(delivery.error?.code).toBe("bad\ufffd")
        expect(delivery.error?.message.startsWith("<html>\ufffdxxx")).toBe(true)
        expect(delivery.error?.message.length).toBe(foreignTextLimit)
        expect(delivery.attempts[0]!.error).toEqual(delivery.error)
      }
    }))

  it.effect("a post that moved on since the caller's copy is read afresh, and only its steps are retried", () =>
    Effect.gen(function*() {
      const { records, world } = yield* setup(2)
      const [moved, kept] = records
      const store = yield* PostStore.pipe(Effect.provide(world.layer))
      yield* store.commit(PostChange.Update({ expectedVersion: moved!.post.version, record: { ...moved!, post: moved!.post.with({ version: moved!.post.version + 1 }) }, events: [] }))
      const items = [moved!, kept!].map((record) => ({ projectId: world.projectId, id: record.deliveries[0]!.id, record }))
      const begun = yield* beginAttempts(items).pipe(Effect.provide(world.layer))
      expect(begun.map((answer) => Either.getOrThrow(answer).record.post.version)).toEqual([moved!.post.version + 2, kept!.post.version + 1])
      expect(begun.map((answer) => Either.getOrThrow(answer).delivery.status)).toEqual(["publishing", "publishing"])
    }))

  it.effect("a delivery that is not due, or gone, answers its own error and the others still begin", () =>
    Effect.gen(function*() {
      const { records, world } = yield* setup(1)
      const [record] = records
      const [first, second] = record!.deliveries
      const done = { ...record!, deliveries: [first!.with({ status: "success" }), second!] }
      world.data.posts.set(record!.post.id, done)
      const items = [
        { projectId: world.projectId, id: first!.id, record: done },
        { projectId: world.projectId, id: second!.id, record: done },
        { projectId: world.projectId, id: "40000000-0000-4000-8000-000000000000" as DeliveryId, record: done }
      ]
      const begun = yield* beginAttempts(items).pipe(Effect.provide(world.layer))
      expect(begun.map((answer) => Either.isLeft(answer) ? answer.left._tag : answer.right.delivery.status)).toEqual([
        "DeliveryNotDue",
        "publishing",
        "DeliveryNotFound"
      ])
    }))
})
