// The storage contract: every adapter of the storage ports passes the cases of the ports it
// provides, whatever keeps the data. A complete adapter runs `storageCases`; the in-memory ones of
// core/src/memory run the sections of the ports they implement (core/test/InMemoryStores.test.ts).
import { describe, expect, type Vitest } from "@effect/vitest"
import {
  AccountAdmin,
  type AccountReport,
  ApprovalChannel,
  ApprovalChannelId,
  ApprovalChannels,
  ApprovalMessageOutcome,
  type ClaimedApprovalMessage,
  AccountConnections,
  AccountStore,
  ConnectionChecks,
  type ConnectionFinding,
  deadLogin,
  expiringToken,
  ApiKeyHash,
  ConnectionStates,
  type Credentials,
  ApiKeyStore,
  CreateOutcome,
  DeliveryQueue,
  EventId,
  MetricsStore,
  OutboxEvent,
  OutboxQueue,
  PostChange,
  type PostRecord,
  PostStore,
  type PostUpdate,
  ProjectAdmin,
  ProjectStore,
  PinterestBoards,
  PlatformQuotas,
  PublishCheckpoints,
  RateLimitStore,
  OutboxSendOutcome,
  Project,
  type SigningSecrets,
  SocialAccount,
  WebhookEndpoints
} from "@herald/core"
import { Context, DateTime, Effect, Exit, Fiber, Option, Redacted, Stream, TestServices } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { metricsStoreCases } from "./MetricsContract.js"
import { at, newAccount, newEndpoint, newKeyId, newPost, newProject, t0 } from "./StorageFixtures.js"

/**
 * The rows an adapter keeps, read beside its ports, so the contract can check writes that no port
 * reads back (a failed create left nothing, a removed post took its deliveries). Tables and
 * columns are named as in the PostgreSQL schema; each adapter's test answers them from its own store.
 */
export class StoredRows extends Context.Tag("@herald/core/test/StoredRows")<StoredRows, {
  /** The rows of `table` whose `column` holds `value`. */
  readonly rows: (table: string, column: string, value: string) => Effect.Effect<ReadonlyArray<Readonly<Record<string, unknown>>>>
}>() {}

const count = (table: string, column: string, value: string) =>
  Effect.flatMap(StoredRows, (stored) => Effect.map(stored.rows(table, column, value), (rows) => rows.length))

/** Cases of the contract, over the ports (and stored rows) they need. */
export type Cases<R> = (it: Vitest.MethodsNonLive<R>) => void

/** PostStore: creates with their claims, and changes at their expected version. */
export const postStoreCases: Cases<PostStore | StoredRows> = (it) => {
  describe("PostStore.create", () => {
    it.effect("writes the post, deliveries, events and idempotency record together and reads them back", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const input = newPost({ projectId: project.id, idempotency: { key: "k1", fingerprint: "f1" } })
        const event = new OutboxEvent({
          id: EventId.make(randomUUID()),
          projectId: project.id,
          kind: "post.approved",
          createdAt: t0,
          data: { post: { id: input.record.post.id } }
        })
        const outcome = yield* posts.create({ ...input, events: [event] })
        expect(outcome._tag).toBe("Created")
        const found = yield* posts.find(project.id, input.record.post.id)
        expect(Option.getOrThrow(found)).toEqual(input.record)
        expect(yield* count("outbox_events", "id", event.id)).toBe(1)
        expect(yield* count("idempotency_keys", "post_id", input.record.post.id)).toBe(1)
        expect(yield* posts.createdSince(input.record.post.author.keyId, t0)).toBe(1)
        const byDelivery = yield* posts.findByDelivery(project.id, input.record.deliveries[1]!.id)
        expect(Option.map(byDelivery, (r) => r.post.id)).toEqual(Option.some(input.record.post.id))
      }))

    it.effect("a failure mid-create leaves nothing behind", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const input = newPost({ projectId: project.id, idempotency: { key: "k", fingerprint: "f" }, dailyCap: { cap: 5 } })
        // Two deliveries with one id: the second insert breaks after the post row was written.
        const [first] = input.record.deliveries
        const broken = { ...input, record: { ...input.record, deliveries: [first!, first!] } }
        const exit = yield* Effect.exit(posts.create(broken))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(yield* count("posts", "id", input.record.post.id)).toBe(0)
        expect(yield* count("deliveries", "post_id", input.record.post.id)).toBe(0)
        expect(yield* count("idempotency_keys", "project_id", project.id)).toBe(0)
        expect(yield* count("post_creations", "post_id", input.record.post.id)).toBe(0)
        // The key is still free: the same create now succeeds.
        expect((yield* posts.create(input))._tag).toBe("Created")
      }))

    it.effect("concurrent creates without claims are all written, and one the database refuses fails alone", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const keyId = newKeyId()
        const first = newPost({ projectId: project.id, keyId })
        yield* posts.create(first)
        // Written together with the others, a post whose id is taken fails the shared statement.
        const inputs = Array.from({ length: 40 }, () => newPost({ projectId: project.id, keyId }))
        const culprit = { ...inputs[0]!, record: { ...inputs[0]!.record, post: first.record.post } }
        const exits = yield* Effect.all([culprit, ...inputs.slice(1)].map((input) => Effect.exit(posts.create(input))), {
          concurrency: "unbounded"
        })
        expect(Exit.isFailure(exits[0]!)).toBe(true)
        expect(exits.slice(1).every(Exit.isSuccess)).toBe(true)
        expect(yield* count("posts", "project_id", project.id)).toBe(40)
        expect(yield* count("deliveries", "project_id", project.id)).toBe(80)
        expect(yield* posts.createdSince(keyId, t0)).toBe(40)
        const listed = yield* posts.list(project.id, { statuses: null, limit: 100 })
        expect(new Set(listed.map((record) => record.post.id))).toEqual(
          new Set([first, ...inputs.slice(1)].map((input) => input.record.post.id))
        )
      }))

    it.effect("100 concurrent creates with one idempotency key make one post; 99 are Repeated", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const keyId = newKeyId()
        const inputs = Array.from({ length: 100 }, () =>
          newPost({ projectId: project.id, keyId, idempotency: { key: "same", fingerprint: "body-1" } }))
        const outcomes = yield* Effect.all(inputs.map((input) => posts.create(input)), { concurrency: "unbounded" })
        const created = outcomes.filter(CreateOutcome.$is("Created"))
        const repeated = outcomes.filter(CreateOutcome.$is("Repeated"))
        expect(created).toHaveLength(1)
        expect(repeated).toHaveLength(99)
        const winner = created[0]!.record.post.id
        expect(repeated.every((outcome) => outcome.record.post.id === winner)).toBe(true)
        expect(yield* count("posts", "project_id", project.id)).toBe(1)
        expect(yield* posts.createdSince(keyId, t0)).toBe(1)
      }))

    it.effect("the same key with a different body is refused with IdempotencyKeyReused", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        yield* posts.create(newPost({ projectId: project.id, idempotency: { key: "k", fingerprint: "a" } }))
        const error = yield* Effect.flip(posts.create(newPost({ projectId: project.id, idempotency: { key: "k", fingerprint: "b" } })))
        expect(error._tag).toBe("IdempotencyKeyReused")
        // Keys are per project: another project may use the same one.
        const other = newProject()
        const outcome = yield* posts.create(newPost({ projectId: other.id, idempotency: { key: "k", fingerprint: "b" } }))
        expect(outcome._tag).toBe("Created")
        const earlier = yield* posts.findIdempotent(project.id, "k")
        expect(Option.map(earlier, (e) => e.fingerprint)).toEqual(Option.some("a"))
      }))

    it.effect("the daily cap holds under concurrency and counts deleted posts", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const keyId = newKeyId()
        const outcomes = yield* Effect.all(
          Array.from({ length: 20 }, () =>
            Effect.either(posts.create(newPost({ projectId: project.id, keyId, dailyCap: { cap: 5 } })))),
          { concurrency: "unbounded" }
        )
        const created = outcomes.filter((o) => o._tag === "Right")
        const refused = outcomes.flatMap((o) => o._tag === "Left" ? [o.left] : [])
        expect(created).toHaveLength(5)
        expect(refused).toHaveLength(15)
        expect(refused.every((e) => e._tag === "DailyCapReached" && e.cap === 5)).toBe(true)
        // Removing a post does not give its slot back.
        const first = created[0]!.right.record.post
        yield* posts.commit(PostChange.Remove({ expectedVersion: first.version, postId: first.id }))
        expect(yield* posts.createdSince(keyId, DateTime.subtract(t0, { hours: 1 }))).toBe(5)
        const again = yield* Effect.flip(posts.create(newPost({ projectId: project.id, keyId, dailyCap: { cap: 5 } })))
        expect(again._tag).toBe("DailyCapReached")
      }))

    it.effect("removing a post frees its idempotency key: the key then makes a new post", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const first = newPost({ projectId: project.id, idempotency: { key: "k", fingerprint: "a" } })
        yield* posts.create(first)
        yield* posts.commit(PostChange.Remove({ expectedVersion: 1, postId: first.record.post.id }))
        expect(yield* posts.findIdempotent(project.id, "k")).toEqual(Option.none())
        const again = newPost({ projectId: project.id, idempotency: { key: "k", fingerprint: "b" } })
        expect((yield* posts.create(again))._tag).toBe("Created")
        expect(yield* count("idempotency_keys", "post_id", again.record.post.id)).toBe(1)
      }))
  })

  describe("PostStore.commit", () => {
    it.effect("applies a change only at the expected version: a concurrent commit gets StaleWrite", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const { record } = newPost({ projectId: project.id })
        yield* posts.create({ record, events: [], idempotency: null, dailyCap: null })
        const change = (caption: string) =>
          PostChange.Update({
            expectedVersion: 1,
            record: { post: record.post.with({ version: 2, caption }), deliveries: record.deliveries },
            events: []
          })
        const results = yield* Effect.all([posts.commit(change("a")), posts.commit(change("b"))].map(Effect.either), {
          concurrency: "unbounded"
        })
        expect(results.filter((r) => r._tag === "Right")).toHaveLength(1)
        expect(results.filter((r) => r._tag === "Left" && r.left._tag === "StaleWrite")).toHaveLength(1)
        const stored = Option.getOrThrow(yield* posts.find(project.id, record.post.id))
        expect(stored.post.version).toBe(2)
      }))

    it.effect("an update of a post removed meanwhile is a StaleWrite, and writes nothing", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const { record } = newPost({ projectId: project.id })
        yield* posts.create({ record, events: [], idempotency: null, dailyCap: null })
        yield* posts.commit(PostChange.Remove({ expectedVersion: 1, postId: record.post.id }))
        const late = yield* Effect.flip(posts.commit(PostChange.Update({
          expectedVersion: 1,
          record: { post: record.post.with({ version: 2 }), deliveries: record.deliveries },
          events: []
        })))
        expect(late._tag).toBe("StaleWrite")
        expect(yield* count("deliveries", "post_id", record.post.id)).toBe(0)
      }))

    it.effect("commitAll writes the fresh changes with their events and returns the stale ones, which write nothing", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const inputs = [0, 1, 2].map(() => newPost({ projectId: project.id }))
        yield* Effect.forEach(inputs, (input) => posts.create(input))
        const [a, b, c] = inputs.map((input) => input.record)
        // b moves on before the batch, which still expects its version 1.
        yield* posts.commit(PostChange.Update({ expectedVersion: 1, record: { ...b!, post: b!.post.with({ version: 2, caption: "first" }) }, events: [] }))
        const event = (record: PostRecord) =>
          new OutboxEvent({ id: EventId.make(randomUUID()), projectId: project.id, kind: "post.published", createdAt: t0, data: { post: { id: record.post.id } } })
        const update = (record: PostRecord, caption: string) => {
          const next = { post: record.post.with({ version: 2, caption }), deliveries: record.deliveries.map((delivery) => delivery.with({ status: "success" })) }
          return PostChange.Update({ expectedVersion: 1, record: next, events: [event(record)] }) as PostUpdate
        }
        const changes = [update(a!, "a"), update(b!, "b"), update(c!, "c")]
        const stale = yield* posts.commitAll(changes)
        expect(stale.map((error) => [error._tag, error.postId])).toEqual([["StaleWrite", b!.post.id]])
        for (const [index, record] of [[0, a!], [2, c!]] as const) {
          expect(Option.getOrThrow(yield* posts.find(project.id, record.post.id))).toEqual(changes[index]!.record)
          expect(yield* count("outbox_events", "id", changes[index]!.events[0]!.id)).toBe(1)
        }
        const kept = Option.getOrThrow(yield* posts.find(project.id, b!.post.id))
        expect(kept.post.caption).toBe("first")
        expect(kept.deliveries.map((delivery) => delivery.status)).toEqual(b!.deliveries.map((delivery) => delivery.status))
        expect(yield* count("outbox_events", "id", changes[1]!.events[0]!.id)).toBe(0)
      }))

    it.effect("commitAll is atomic: a change that breaks leaves every change of the batch unwritten", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const inputs = [0, 1].map(() => newPost({ projectId: project.id }))
        yield* Effect.forEach(inputs, (input) => posts.create(input))
        const [a, b] = inputs.map((input) => input.record)
        const event = new OutboxEvent({ id: EventId.make(randomUUID()), projectId: project.id, kind: "post.published", createdAt: t0, data: {} })
        // Both changes carry the same event id: the second insert breaks after the first change was written.
        const changes = [a!, b!].map((record) =>
          PostChange.Update({ expectedVersion: 1, record: { ...record, post: record.post.with({ version: 2 }) }, events: [event] }) as PostUpdate
        )
        expect(Exit.isFailure(yield* Effect.exit(posts.commitAll(changes)))).toBe(true)
        for (const record of [a!, b!]) expect(Option.getOrThrow(yield* posts.find(project.id, record.post.id)).post.version).toBe(1)
        expect(yield* count("outbox_events", "id", event.id)).toBe(0)
      }))

    it.effect("a published delivery keeps its main post id, its URL and the ids of its follow-up posts", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const input = newPost({ projectId: newProject().id, deliveries: 1 })
        yield* posts.create(input)
        const [delivery] = input.record.deliveries
        const published = delivery!.with({ status: "success", url: "https://x.com/a/status/1", platformPostId: "1", followUpPostIds: ["2", "3", "4"] })
        yield* posts.commit(PostChange.Update({
          expectedVersion: 1,
          record: { post: input.record.post.with({ version: 2 }), deliveries: [published] },
          events: []
        }))
        const [found] = yield* posts.findMany([{ projectId: input.record.post.projectId, postId: input.record.post.id }])
        expect(found!.deliveries[0]).toEqual(published)
        expect(found!.deliveries[0]!.followUpPostIds).toEqual(["2", "3", "4"])
      }))

    it.effect("findMany reads the posts named within their projects, with their deliveries", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const other = newProject()
        const mine = [0, 1].map(() => newPost({ projectId: project.id }))
        const theirs = newPost({ projectId: other.id })
        yield* Effect.forEach([...mine, theirs], (input) => posts.create(input))
        const found = yield* posts.findMany([
          ...mine.map((input) => ({ projectId: project.id, postId: input.record.post.id })),
          { projectId: project.id, postId: theirs.record.post.id },
          { projectId: project.id, postId: newPost({ projectId: project.id }).record.post.id }
        ])
        const byId = (records: ReadonlyArray<PostRecord>) => [...records].sort((x, y) => x.post.id < y.post.id ? -1 : 1)
        expect(byId(found)).toEqual(byId(mine.map((input) => input.record)))
      }))

    it.effect("supersede hides the old post from list but find still returns it; remove deletes deliveries", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const first = newPost({ projectId: project.id, createdAt: t0 })
        yield* posts.create(first)
        const successor = newPost({ projectId: project.id, createdAt: DateTime.add(t0, { minutes: 1 }) })
        yield* posts.commit(PostChange.Supersede({ expectedVersion: 1, previous: first.record.post, successor }))
        const listed = yield* posts.list(project.id, { statuses: null, limit: 50 })
        expect(listed.map((r) => r.post.id)).toEqual([successor.record.post.id])
        const old = Option.getOrThrow(yield* posts.find(project.id, first.record.post.id))
        expect(old.post.supersededBy).toBe(successor.record.post.id)
        const stale = yield* Effect.flip(
          posts.commit(PostChange.Supersede({ expectedVersion: 1, previous: first.record.post, successor: newPost({ projectId: project.id }) }))
        )
        expect(stale._tag).toBe("StaleWrite")
        yield* posts.commit(PostChange.Remove({ expectedVersion: 1, postId: successor.record.post.id }))
        expect(yield* count("deliveries", "post_id", successor.record.post.id)).toBe(0)
        expect(Option.isNone(yield* posts.find(project.id, successor.record.post.id))).toBe(true)
      }))

    it.effect("list is newest first, filtered by status, limited", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const inputs = [0, 1, 2].map((minutes) => newPost({ projectId: project.id, createdAt: DateTime.add(t0, { minutes }) }))
        yield* Effect.forEach(inputs, (input) => posts.create(input))
        const listed = yield* posts.list(project.id, { statuses: ["processing"], limit: 2 })
        expect(listed.map((r) => r.post.id)).toEqual([inputs[2]!.record.post.id, inputs[1]!.record.post.id])
        expect(yield* posts.list(project.id, { statuses: ["draft"], limit: 50 })).toEqual([])
      }))

    it.effect("posts created at one instant are listed highest id first", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const project = newProject()
        const inputs = [0, 1, 2].map(() => newPost({ projectId: project.id, createdAt: t0 }))
        yield* Effect.forEach(inputs, (input) => posts.create(input))
        const listed = yield* posts.list(project.id, { statuses: null, limit: 50 })
        expect(listed.map((r) => r.post.id)).toEqual(inputs.map((input) => input.record.post.id).sort().reverse())
      }))
  })
}

/** DeliveryQueue: claims under leases, over the deliveries PostStore writes. */
export const deliveryQueueCases: Cases<PostStore | DeliveryQueue | StoredRows> = (it) => {
  describe("DeliveryQueue", () => {
    it.effect("two workers claiming the same due set take each delivery exactly once", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const queue = yield* DeliveryQueue
        const project = newProject()
        const inputs = Array.from({ length: 10 }, () =>
          newPost({ projectId: project.id, deliveries: 3, deliveryStatus: "queued", dueAt: t0 }))
        yield* Effect.forEach(inputs, (input) => posts.create(input))
        const now = DateTime.add(t0, { seconds: 1 })
        const claim = (worker: string) => queue.claimDue({ now, limit: 1000, leaseMillis: 60_000, worker })
        const [a, b] = yield* Effect.all([claim("a"), claim("b")], { concurrency: "unbounded" })
        const mine = (claimed: typeof a) => claimed.filter((c) => c.projectId === project.id).map((c) => c.deliveryId)
        const all = [...mine(a), ...mine(b)]
        expect(new Set(all).size).toBe(30)
        expect(all).toHaveLength(30)
        // Held leases are not handed out again.
        expect(mine(yield* claim("c"))).toEqual([])
      }))

    it.effect("a dead worker's lease expires and another worker claims the delivery", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const queue = yield* DeliveryQueue
        const project = newProject()
        const due = DateTime.add(t0, { days: 1 })
        const input = newPost({ projectId: project.id, deliveries: 1, deliveryStatus: "queued", dueAt: due })
        yield* posts.create(input)
        const id = input.record.deliveries[0]!.id
        const mine = (claimed: ReadonlyArray<{ readonly deliveryId: string }>) => claimed.filter((c) => c.deliveryId === id)
        const claim = (worker: string, now: DateTime.Utc) => queue.claimDue({ now, limit: 1000, leaseMillis: 30_000, worker })
        expect(mine(yield* claim("dead", due))).toHaveLength(1)
        expect(mine(yield* claim("live", DateTime.add(due, { seconds: 29 })))).toHaveLength(0)
        expect(yield* queue.renew(id, { now: DateTime.add(due, { seconds: 31 }), leaseMillis: 30_000, worker: "dead" })).toBe(false)
        expect(mine(yield* claim("live", DateTime.add(due, { seconds: 31 })))).toHaveLength(1)
        expect(yield* queue.renew(id, { now: DateTime.add(due, { seconds: 40 }), leaseMillis: 30_000, worker: "live" })).toBe(true)
        yield* queue.release(id, "live")
        expect(mine(yield* claim("next", DateTime.add(due, { seconds: 41 })))).toHaveLength(1)
      }))

    it.effect("the commit that settles a delivery releases its lease; one that queues it again keeps it", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const queue = yield* DeliveryQueue
        const project = newProject()
        const due = DateTime.add(t0, { days: 2 })
        const input = newPost({ projectId: project.id, deliveries: 2, deliveryStatus: "queued", dueAt: due })
        yield* posts.create(input)
        const ids = input.record.deliveries.map((delivery) => delivery.id)
        const claim = (worker: string, now: DateTime.Utc) =>
          Effect.map(queue.claimDue({ now, limit: 1000, leaseMillis: 60_000, worker }), (claimed) =>
            claimed.filter((c) => ids.includes(c.deliveryId)).map((c) => c.deliveryId))
        expect(yield* claim("a", due)).toHaveLength(2)
        const [settled, retried] = input.record.deliveries
        yield* posts.commit(PostChange.Update({
          expectedVersion: 1,
          record: {
            post: input.record.post.with({ version: 2 }),
            deliveries: [settled!.with({ status: "success" }), retried!.with({ status: "queued", dueAt: due })]
          },
          events: []
        }))
        const stored = yield* StoredRows
        const lease = (yield* Effect.forEach(ids, (id) => stored.rows("deliveries", "id", id))).flat()
        expect(Object.fromEntries(lease.map((row) => [row.id, row.lease_owner]))).toEqual({ [settled!.id]: null, [retried!.id]: "a" })
        // The queued one is still held by "a" until its lease lapses.
        expect(yield* claim("b", DateTime.add(due, { seconds: 1 }))).toEqual([])
      }))

    it.effect("nextDue is when the earliest queued or unknown delivery falls due after now", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const queue = yield* DeliveryQueue
        const project = newProject()
        // Past every other test's due times, so only these rows are in the window.
        const now = DateTime.add(t0, { days: 1000 })
        const dueIn = (minutes: number, deliveryStatus: "queued" | "unknown" | "success") =>
          posts.create(newPost({ projectId: project.id, deliveries: 1, deliveryStatus, dueAt: DateTime.add(now, { minutes }) }))
        yield* dueIn(-1, "queued")
        yield* dueIn(5, "success")
        yield* dueIn(12, "queued")
        yield* dueIn(9, "unknown")
        expect(yield* queue.nextDue(now)).toEqual(Option.some(DateTime.add(now, { minutes: 9 })))
        expect(yield* queue.nextDue(DateTime.add(now, { minutes: 9 }))).toEqual(Option.some(DateTime.add(now, { minutes: 12 })))
      }))

    it.effect("a create that queues deliveries wakes listening workers", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const posts = yield* PostStore
        const queue = yield* DeliveryQueue
        const woken = yield* Effect.fork(Stream.runHead(queue.wakeups))
        const project = newProject()
        // LISTEN starts asynchronously: keep creating until the listener hears one (polling is the truth anyway).
        for (let tries = 0; tries < 50 && (yield* Fiber.poll(woken))._tag === "None"; tries++) {
          yield* posts.create(newPost({ projectId: project.id, deliveries: 1, deliveryStatus: "queued", dueAt: t0 }))
          yield* Effect.sleep("20 millis")
        }
        expect(yield* Fiber.join(woken).pipe(Effect.timeout("1 second"))).toEqual(Option.some(undefined))
      })))
  })
}

/** OutboxQueue: events fanned out to endpoints, each send to one worker. */
export const outboxQueueCases: Cases<PostStore | OutboxQueue | ProjectAdmin | WebhookEndpoints> = (it) => {
  describe("OutboxQueue", () => {
    it.effect("fans an event out to subscribed endpoints and hands each send to one worker", () =>
      Effect.gen(function*() {
        const admin = yield* ProjectAdmin
        const endpoints = yield* WebhookEndpoints
        const outbox = yield* OutboxQueue
        const posts = yield* PostStore
        const project = newProject()
        yield* admin.create(project)
        const endpoint = newEndpoint(project.id)
        yield* endpoints.create(endpoint, Redacted.make("whsec_old"))
        const eventAt = DateTime.add(t0, { days: 2 })
        const oldUntil = DateTime.add(eventAt, { hours: 1 })
        yield* endpoints.rotateSecret(project.id, endpoint.id, Redacted.make("whsec_topsecret"), oldUntil)
        const event = (kind: "post.published" | "post.failed") =>
          new OutboxEvent({ id: EventId.make(randomUUID()), projectId: project.id, kind, createdAt: eventAt, data: {} })
        const published = event("post.published")
        yield* posts.create({ ...newPost({ projectId: project.id }), events: [published, event("post.failed")] })
        const request = (worker: string) => ({ now: eventAt, limit: 100, leaseMillis: 10_000, worker })
        const [a, b] = yield* Effect.all([outbox.claimDue(request("a")), outbox.claimDue(request("b"))], { concurrency: 2 })
        const mine = [...a, ...b].filter((send) => send.endpoint.id === endpoint.id)
        expect(mine.map((send) => send.event.id)).toEqual([published.id])
        expect(Redacted.value(mine[0]!.endpoint.secrets.current)).toBe("whsec_topsecret")
        expect(Option.map(mine[0]!.endpoint.secrets.previous, ({ secret, until }) => [Redacted.value(secret), until]))
          .toEqual(Option.some(["whsec_old", oldUntil]))
        const owner = a.includes(mine[0]!) ? "a" : "b"
        yield* outbox.complete(mine[0]!.sendId, owner, OutboxSendOutcome.GaveUp({ at: eventAt, error: "HTTP 500", disableAfter: 1 }))
        const [listed] = yield* endpoints.list(project.id)
        expect(listed!.enabled).toBe(false)
        expect(listed!.consecutiveFailures).toBe(1)
        expect(listed!.lastError).toBe("HTTP 500")
      }))
  })
}

/** ApprovalChannels: the messages held posts owe their project's channels, each to one worker. */
/** WebhookEndpoints' secret rotation: the current secret becomes the previous one until the given time. */
export const webhookSecretCases: Cases<ProjectAdmin | WebhookEndpoints> = (it) => {
  describe("WebhookEndpoints.rotateSecret", () => {
    const plain = (secrets: SigningSecrets) => ({
      current: Redacted.value(secrets.current),
      previous: Option.map(secrets.previous, ({ secret, until }) => ({ secret: Redacted.value(secret), until }))
    })
    it.effect("keeps the replaced secret with its end, drops an older one, and refuses another project's endpoint", () =>
      Effect.gen(function*() {
        const admin = yield* ProjectAdmin
        const endpoints = yield* WebhookEndpoints
        const project = newProject()
        yield* admin.create(project)
        const endpoint = newEndpoint(project.id)
        yield* endpoints.create(endpoint, Redacted.make("whsec_first"))
        expect(plain((yield* endpoints.signingTarget(project.id, endpoint.id)).secrets))
          .toEqual({ current: "whsec_first", previous: Option.none() })
        const firstUntil = DateTime.add(t0, { hours: 24 })
        yield* endpoints.rotateSecret(project.id, endpoint.id, Redacted.make("whsec_second"), firstUntil)
        expect(plain((yield* endpoints.signingTarget(project.id, endpoint.id)).secrets))
          .toEqual({ current: "whsec_second", previous: Option.some({ secret: "whsec_first", until: firstUntil }) })
        const secondUntil = DateTime.add(t0, { hours: 1 })
        yield* endpoints.rotateSecret(project.id, endpoint.id, Redacted.make("whsec_third"), secondUntil)
        expect(plain((yield* endpoints.signingTarget(project.id, endpoint.id)).secrets))
          .toEqual({ current: "whsec_third", previous: Option.some({ secret: "whsec_second", until: secondUntil }) })
        const other = newProject()
        yield* admin.create(other)
        const refused = yield* Effect.flip(endpoints.rotateSecret(other.id, endpoint.id, Redacted.make("whsec_x"), secondUntil))
        expect(refused._tag).toBe("WebhookEndpointNotFound")
        expect(Redacted.value((yield* endpoints.signingTarget(project.id, endpoint.id)).secrets.current)).toBe("whsec_third")
      }))
  })
}

export const approvalChannelCases: Cases<PostStore | ApprovalChannels> = (it) => {
  describe("ApprovalChannels", () => {
    const channelOf = (projectId: Project["id"], kind: "email" | "chat", createdAt: DateTime.Utc) =>
      new ApprovalChannel({
        id: ApprovalChannelId.make(randomUUID()),
        projectId,
        kind,
        recipient: kind === "email" ? "dana@example.com" : "#approvals",
        createdAt
      })
    const held = (projectId: Project["id"], createdAt: DateTime.Utc, status: "pending_approval" | "processing" = "pending_approval") => {
      const input = newPost({ projectId, createdAt })
      return { ...input, record: { ...input.record, post: input.record.post.with({ status }) } }
    }

    it.effect("owes one message per held post and channel that existed when it was written, once", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const channels = yield* ApprovalChannels
        const project = newProject()
        const early = held(project.id, DateTime.subtract(t0, { hours: 1 }))
        yield* posts.create(early)
        const mail = channelOf(project.id, "email", t0)
        const chat = channelOf(project.id, "chat", t0)
        yield* channels.add(mail, Redacted.make("dana@example.com"))
        yield* channels.add(chat, Redacted.make("https://hooks.example.com/services/secret"))
        const later = held(project.id, DateTime.add(t0, { minutes: 1 }))
        yield* posts.create(later)
        yield* posts.create(held(project.id, DateTime.add(t0, { minutes: 2 }), "processing"))
        const now = DateTime.add(t0, { minutes: 3 })
        yield* channels.fanOut(now)
        expect(yield* channels.fanOut(now)).toBe(0)
        const claimed = (yield* channels.claimDue({ now, limit: 100, leaseMillis: 10_000, worker: "a" }))
          .filter((message) => message.projectId === project.id)
        expect(claimed.map((message) => [message.postId, message.channel.kind]).sort()).toEqual(
          [[later.record.post.id, "chat"], [later.record.post.id, "email"]].sort()
        )
        const toChat = claimed.find((message) => message.channel.kind === "chat")!
        expect(Redacted.value(toChat.address)).toBe("https://hooks.example.com/services/secret")
        expect(toChat.attempts).toBe(0)
        expect(yield* channels.recipientOf(project.id, toChat.id)).toEqual(Option.some({ kind: "chat", recipient: "#approvals" }))
        expect(yield* channels.recipientOf(newProject().id, toChat.id)).toEqual(Option.none())
        expect((yield* channels.list(project.id)).map((channel) => channel.id).sort()).toEqual([mail.id, chat.id].sort())
      }))

    it.effect("owes a post held again under the same id (a new version) its messages again, once per hold", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const channels = yield* ApprovalChannels
        const project = newProject()
        const mail = channelOf(project.id, "email", t0)
        yield* channels.add(mail, Redacted.make("dana@example.com"))
        const input = held(project.id, DateTime.add(t0, { minutes: 1 }))
        yield* posts.create(input)
        const mine = (list: ReadonlyArray<ClaimedApprovalMessage>) => list.filter((message) => message.projectId === project.id)
        const request = (worker: string, at: DateTime.Utc) => ({ now: at, limit: 100, leaseMillis: 10_000, worker })
        const first = DateTime.add(t0, { minutes: 2 })
        yield* channels.fanOut(first)
        const [announced] = mine(yield* channels.claimDue(request("a", first)))
        expect(announced).toMatchObject({ postId: input.record.post.id, postVersion: 1 })
        yield* channels.complete(announced!.id, "a", ApprovalMessageOutcome.Sent({ at: first }))
        // Approved and scheduled (version 2), then unscheduled back to the hold (version 3).
        const post = input.record.post
        const scheduled = post.with({ version: 2, status: "scheduled", updatedAt: DateTime.add(t0, { minutes: 3 }) })
        yield* posts.commit(PostChange.Update({ expectedVersion: 1, record: { ...input.record, post: scheduled }, events: [] }))
        const second = DateTime.add(t0, { minutes: 4 })
        yield* channels.fanOut(second)
        expect(mine(yield* channels.claimDue(request("b", second)))).toEqual([])
        const reheld = scheduled.with({ version: 3, status: "pending_approval", updatedAt: second })
        yield* posts.commit(PostChange.Update({ expectedVersion: 2, record: { ...input.record, post: reheld }, events: [] }))
        yield* channels.fanOut(second)
        expect(yield* channels.fanOut(second)).toBe(0)
        const again = mine(yield* channels.claimDue(request("b", second)))
        expect(again.map((message) => [message.postId, message.postVersion, message.channel.id])).toEqual([[post.id, 3, mail.id]])
        expect(again[0]!.id).not.toBe(announced!.id)
        expect(yield* channels.recipientOf(project.id, announced!.id)).toEqual(Option.some({ kind: "email", recipient: "dana@example.com" }))
      }))

    it.effect("hands a message to one worker; a retry comes back when due; a sent or removed channel's message does not", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const channels = yield* ApprovalChannels
        const project = newProject()
        const mail = channelOf(project.id, "email", t0)
        const chat = channelOf(project.id, "chat", t0)
        yield* channels.add(mail, Redacted.make("dana@example.com"))
        yield* channels.add(chat, Redacted.make("https://hooks.example.com/x"))
        yield* posts.create(held(project.id, DateTime.add(t0, { minutes: 1 })))
        const now = DateTime.add(t0, { minutes: 2 })
        yield* channels.fanOut(now)
        const request = (worker: string, at = now) => ({ now: at, limit: 100, leaseMillis: 10_000, worker })
        const mine = (list: ReadonlyArray<ClaimedApprovalMessage>) => list.filter((message) => message.projectId === project.id)
        const [a, b] = yield* Effect.all([channels.claimDue(request("a")), channels.claimDue(request("b"))], { concurrency: 2 })
        const claimed = [...mine(a).map((m) => ["a", m] as const), ...mine(b).map((m) => ["b", m] as const)]
        expect(claimed).toHaveLength(2)
        const [owner, toMail] = claimed.find(([, m]) => m.channel.kind === "email")!
        const [chatOwner, toChat] = claimed.find(([, m]) => m.channel.kind === "chat")!
        const dueAt = DateTime.add(now, { minutes: 5 })
        yield* channels.complete(toMail.id, owner === "a" ? "b" : "a", ApprovalMessageOutcome.Sent({ at: now }))
        yield* channels.complete(toMail.id, owner, ApprovalMessageOutcome.Retry({ at: now, dueAt, error: "451" }))
        yield* channels.complete(toChat.id, chatOwner, ApprovalMessageOutcome.Sent({ at: now }))
        const after = DateTime.add(now, { minutes: 1 })
        expect(mine(yield* channels.claimDue(request("c", after)))).toEqual([])
        const again = mine(yield* channels.claimDue(request("c", dueAt)))
        expect(again.map((m) => [m.id, m.attempts])).toEqual([[toMail.id, 1]])
        yield* channels.complete(toMail.id, "c", ApprovalMessageOutcome.Retry({ at: dueAt, dueAt, error: "451" }))
        yield* channels.remove(project.id, mail.id)
        expect(mine(yield* channels.claimDue(request("d", DateTime.add(dueAt, { hours: 1 }))))).toEqual([])
        expect(yield* Effect.flip(channels.remove(project.id, mail.id))).toMatchObject({ _tag: "ApprovalChannelNotFound" })
        expect(yield* Effect.flip(channels.remove(newProject().id, chat.id))).toMatchObject({ _tag: "ApprovalChannelNotFound" })
        // A link already sent still names who it went to.
        expect(yield* channels.recipientOf(project.id, toMail.id)).toEqual(Option.some({ kind: "email", recipient: "dana@example.com" }))
      }))
  })
}

/** AccountAdmin and AccountConnections: what workers learn about a connection. */
export const accountCases: Cases<AccountAdmin | AccountStore | AccountConnections | ProjectAdmin | StoredRows> = (it) => {
  describe("AccountConnections", () => {
    it.effect("markNeedsReconnect turns an active account needs_reconnect with one event, written together", () =>
      Effect.gen(function*() {
        const admin = yield* AccountAdmin
        const accounts = yield* AccountStore
        const connections = yield* AccountConnections
        const projects = yield* ProjectAdmin
        const project = newProject()
        yield* projects.create(project)
        const account = newAccount(project.id)
        yield* admin.connect(account, { access_token: "t" })
        const event = (id: string) =>
          new OutboxEvent({
            id: EventId.make(id),
            projectId: project.id,
            kind: "account.needs_reconnect",
            createdAt: t0,
            data: { account: { id: account.id, status: "needs_reconnect" }, reason: "token expired" }
          })
        const first = event(randomUUID())
        const issue = () => ({ ...deadLogin(account, "token expired"), id: randomUUID() })
        // Two workers hitting the same expired token at once: one status change, one event.
        const marked = yield* Effect.all([
          connections.markNeedsReconnect(account.id, first, issue()),
          connections.markNeedsReconnect(account.id, event(randomUUID()), issue())
        ], { concurrency: 2 })
        expect(marked.filter(Boolean)).toHaveLength(1)
        expect((yield* accounts.list(project.id)).map((a) => a.status)).toEqual(["needs_reconnect"])
        expect(yield* count("outbox_events", "project_id", project.id)).toBe(1)
        // Not active any more: nothing changes, nothing is written.
        yield* admin.setStatus(account.id, "disconnected")
        expect(yield* connections.markNeedsReconnect(account.id, event(randomUUID()), issue())).toBe(false)
        expect((yield* accounts.list(project.id)).map((a) => a.status)).toEqual(["disconnected"])
        expect(yield* count("outbox_events", "project_id", project.id)).toBe(1)
      }))
  })
}

/** ConnectionChecks: leases, the throttle, and one incident per (account, kind) shared with AccountConnections. */
export const connectionCheckCases: Cases<AccountAdmin | AccountStore | AccountConnections | ConnectionChecks | ProjectAdmin | StoredRows> = (it) => {
  const setUp = (usernames: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const project = newProject()
      yield* (yield* ProjectAdmin).create(project)
      const accounts = usernames.map((username) => newAccount(project.id, username))
      for (const account of accounts) yield* (yield* AccountAdmin).connect(account, {})
      return { project, accounts }
    })
  const withId = (finding: ConnectionFinding) => ({ ...finding, id: randomUUID() })
  const lease = (worker: string, now = t0) => ({ now, leaseMillis: 60_000, worker })
  const deadEvent = (projectId: Project["id"], account: { readonly id: string }) =>
    new OutboxEvent({ id: EventId.make(randomUUID()), projectId, kind: "account.needs_reconnect", createdAt: t0, data: { account: { id: account.id } } })

  describe("ConnectionChecks", () => {
    it.effect("two workers claiming at once never take the same account; a leased account is not claimed again", () =>
      Effect.gen(function*() {
        const checks = yield* ConnectionChecks
        const { accounts, project } = yield* setUp(["a1", "a2", "a3", "a4"])
        const [a, b] = yield* Effect.all([
          checks.claimProject(project.id, lease("a"), []),
          checks.claimProject(project.id, lease("b"), [])
        ], { concurrency: 2 })
        const ids = [...a.claimed, ...b.claimed].map((account) => account.id)
        expect(new Set(ids).size).toBe(ids.length)
        expect(ids.sort()).toEqual(accounts.map((account) => account.id).sort())
        expect(yield* checks.claimProject(project.id, lease("c"), [])).toEqual({ claimed: [], busy: 4 })
        // Once the leases lapse, the accounts can be claimed again (but those excepted).
        const again = yield* checks.claimProject(project.id, lease("c", DateTime.add(t0, { minutes: 2 })), [accounts[0]!.id])
        expect(again.claimed).toHaveLength(3)
        expect(again.busy).toBe(0)
      }))

    it.effect("record spaces the next check; claimProject bypasses that throttle but not the platform's wait", () =>
      Effect.gen(function*() {
        const checks = yield* ConnectionChecks
        const { accounts: [throttled, waiting], project } = yield* setUp(["throttled", "waiting"])
        const claimed = yield* checks.claimDue({ ...lease("w"), limit: 100 })
        expect(claimed.map((account) => account.id)).toEqual(expect.arrayContaining([throttled!.id, waiting!.id]))
        const base = { worker: "w", at: t0, answered: true, findings: [], deadLogin: null, notBefore: null }
        yield* checks.record({ ...base, account: throttled!, nextCheckAt: DateTime.add(t0, { hours: 6 }) })
        yield* checks.record({
          ...base,
          account: waiting!,
          answered: false,
          nextCheckAt: DateTime.add(t0, { hours: 1 }),
          notBefore: DateTime.add(t0, { hours: 1 })
        })
        const mine = (found: ReadonlyArray<{ readonly projectId: string }>) => found.filter((account) => account.projectId === project.id)
        expect(mine(yield* checks.claimDue({ ...lease("w", DateTime.add(t0, { minutes: 30 })), limit: 100 }))).toEqual([])
        // The one inside the platform's wait is neither claimed nor busy.
        expect(yield* checks.claimProject(project.id, lease("w", DateTime.add(t0, { minutes: 30 })), [])).toEqual({ claimed: [throttled], busy: 0 })
      }))

    it.effect("a dead login found by a failed delivery and then by the checker is one incident and one event", () =>
      Effect.gen(function*() {
        const checks = yield* ConnectionChecks
        const connections = yield* AccountConnections
        const accounts = yield* AccountStore
        const { accounts: [account], project } = yield* setUp(["dead"])
        expect(yield* connections.markNeedsReconnect(account!.id, deadEvent(project.id, account!), withId(deadLogin(account!, "token revoked")))).toBe(true)
        const { claimed: [claimed] } = yield* checks.claimProject(project.id, lease("w"), [])
        const later = DateTime.add(t0, { minutes: 5 })
        const marked = yield* checks.record({
          account: claimed!,
          worker: "w",
          at: later,
          answered: true,
          findings: [withId(deadLogin(account!, "token revoked"))],
          deadLogin: deadEvent(project.id, account!),
          nextCheckAt: DateTime.add(later, { hours: 6 }),
          notBefore: null
        })
        expect(marked).toBe(false)
        expect(yield* count("outbox_events", "project_id", project.id)).toBe(1)
        const open = yield* checks.listOpen(project.id)
        expect(open.map((issue) => [issue.kind, issue.severity])).toEqual([["login_dead", "critical"]])
        expect(open[0]!.openedAt).toEqual(t0)
        expect(open[0]!.lastCheckedAt).toEqual(later)
        expect((yield* accounts.list(project.id)).map((a) => a.status)).toEqual(["needs_reconnect"])
      }))

    it.effect("what the platform reports of an account is kept with it: from its connect, then from each check that says", () =>
      Effect.gen(function*() {
        const checks = yield* ConnectionChecks
        const accounts = yield* AccountStore
        const admin = yield* AccountAdmin
        const { project } = yield* setUp([])
        const report = (seconds: number): AccountReport => ({
          checked_at: DateTime.formatIso(t0),
          video_seconds: seconds,
          public_posts: false,
          public_posts_reason: "the app is unaudited",
          options: { privacy_status: { values: ["SELF_ONLY"], reason: "unaudited" }, disable_comment: { fixed: true, reason: "off" } }
        })
        const connected = yield* admin.connectPlatformAccount(
          new SocialAccount({ ...newAccount(project.id, "creator"), route: "direct", report: report(600) }),
          { access_token: "a" },
          "open-1"
        )
        expect((yield* accounts.list(project.id)).map((a) => a.report)).toEqual([report(600)])
        const { claimed: [claimed] } = yield* checks.claimProject(project.id, lease("w"), [])
        const base = { account: claimed!, worker: "w", at: t0, answered: true, findings: [], deadLogin: null, nextCheckAt: t0, notBefore: null }
        yield* checks.record({ ...base, report: report(180) })
        expect((yield* accounts.list(project.id)).map((a) => a.report)).toEqual([report(180)])
        // A check that says nothing new leaves the report as it was.
        yield* checks.claimProject(project.id, lease("w", DateTime.add(t0, { hours: 1 })), [])
        yield* checks.record({ ...base, at: DateTime.add(t0, { hours: 1 }) })
        expect((yield* accounts.list(project.id)).map((a) => a.report)).toEqual([report(180)])
        // A reconnect brings its own.
        yield* admin.connectPlatformAccount(new SocialAccount({ ...newAccount(project.id, "creator"), route: "direct", report: report(300) }), { access_token: "b" }, "open-1")
        expect((yield* accounts.list(project.id)).map((a) => [a.id, a.report])).toEqual([[connected.id, report(300)]])
      }))

    it.effect("an answered check resolves what it no longer finds; reconnected resolves what a reconnect answers", () =>
      Effect.gen(function*() {
        const checks = yield* ConnectionChecks
        const accounts = yield* AccountStore
        const { accounts: [account], project } = yield* setUp(["expiring"])
        const expiring = withId(expiringToken(account!, DateTime.add(t0, { days: 2 }), t0))
        yield* checks.claimProject(project.id, lease("w"), [])
        const base = { account: account!, worker: "w", at: t0, answered: true, deadLogin: null, nextCheckAt: t0, notBefore: null }
        yield* checks.record({ ...base, findings: [expiring] })
        expect((yield* checks.listOpen(project.id)).map((issue) => issue.kind)).toEqual(["token_expiring"])
        yield* checks.reconnected(account!.id, DateTime.add(t0, { hours: 1 }))
        expect(yield* checks.listOpen(project.id)).toEqual([])
        // Found dead by the checker, then alive again: the incident closes and the account is active.
        yield* checks.claimProject(project.id, lease("w", DateTime.add(t0, { hours: 1 })), [])
        expect(yield* checks.record({ ...base, findings: [withId(deadLogin(account!, "revoked"))], deadLogin: deadEvent(project.id, account!) })).toBe(true)
        expect((yield* accounts.list(project.id)).map((a) => a.status)).toEqual(["needs_reconnect"])
        yield* checks.claimProject(project.id, lease("w", DateTime.add(t0, { hours: 2 })), [])
        yield* checks.record({ ...base, at: DateTime.add(t0, { hours: 2 }), findings: [] })
        expect(yield* checks.listOpen(project.id)).toEqual([])
        expect((yield* accounts.list(project.id)).map((a) => a.status)).toEqual(["active"])
      }))
  })
}

/**
 * Connecting direct accounts: one account per platform account (reconnects keep its id), states
 * taken once, and credentials renewed by one caller at a time.
 */
export const connectionCases: Cases<AccountAdmin | AccountStore | ConnectionStates | ProjectAdmin> = (it) => {
  describe("AccountAdmin.connectPlatformAccount and renewCredentials, ConnectionStates", () => {
    it.effect("a platform account connected twice (even at once) is one account, reconnected with the last credentials", () =>
      Effect.gen(function*() {
        const admin = yield* AccountAdmin
        const accounts = yield* AccountStore
        const project = newProject()
        yield* Effect.flatMap(ProjectAdmin, (projects) => projects.create(project))
        const direct = (username: string) => new SocialAccount({ ...newAccount(project.id, username), route: "direct" })
        const [a, b] = yield* Effect.all([
          admin.connectPlatformAccount(direct("acme"), { access_token: "a" }, "p-1"),
          admin.connectPlatformAccount(direct("acme"), { access_token: "b" }, "p-1")
        ], { concurrency: 2 })
        expect(a!.id).toBe(b!.id)
        yield* admin.setStatus(a!.id, "needs_reconnect")
        const again = yield* admin.connectPlatformAccount(direct("acme_renamed"), { access_token: "c" }, "p-1")
        expect(again).toMatchObject({ id: a!.id, username: "acme_renamed", status: "active" })
        expect(Option.getOrThrow(yield* admin.credentialsFor(a!.id))).toEqual({ access_token: "c" })
        // Another platform account is another account.
        const other = yield* admin.connectPlatformAccount(direct("acme"), { access_token: "d" }, "p-2")
        expect(other.id).not.toBe(a!.id)
        expect((yield* accounts.list(project.id)).map((account) => account.id).sort()).toEqual([a!.id, other.id].sort())
      }))

    it.effect("renewCredentials runs one renewer at a time per account; the second sees what the first stored", () =>
      Effect.gen(function*() {
        const admin = yield* AccountAdmin
        const project = newProject()
        yield* Effect.flatMap(ProjectAdmin, (projects) => projects.create(project))
        const account = newAccount(project.id)
        yield* admin.connect(account, { access_token: "old" })
        let renewals = 0
        const renew = (current: Credentials) =>
          current.access_token === "old"
            ? Effect.zipRight(Effect.sleep("50 millis"), Effect.sync(() => Option.some({ access_token: `new${++renewals}` })))
            : Effect.succeed(Option.none())
        const results = yield* Effect.all([admin.renewCredentials(account.id, renew), admin.renewCredentials(account.id, renew)], {
          concurrency: 2
        }).pipe(TestServices.provideLive)
        expect(results.map(Option.getOrThrow)).toEqual([{ access_token: "new1" }, { access_token: "new1" }])
        expect(renewals).toBe(1)
        // A renewer that fails stores nothing.
        const failed = yield* Effect.exit(admin.renewCredentials(account.id, () => Effect.fail("refused")))
        expect(Exit.isFailure(failed)).toBe(true)
        expect(Option.getOrThrow(yield* admin.credentialsFor(account.id))).toEqual({ access_token: "new1" })
      }))

    it.effect("a state is taken once, with its verifier", () =>
      Effect.gen(function*() {
        const states = yield* ConnectionStates
        const project = newProject()
        yield* Effect.flatMap(ProjectAdmin, (projects) => projects.create(project))
        const state = `state-${randomUUID()}`
        yield* states.save({
          state,
          projectId: project.id,
          platform: "instagram",
          route: "facebook_login",
          caller: "admin",
          codeVerifier: Redacted.make("verifier"),
          redirectUri: "https://herald.test/oauth/callback/x",
          expiresAt: DateTime.add(t0, { minutes: 10 }),
          carried: Redacted.make("{\"dpop\":\"key\"}")
        })
        const [first, second] = yield* Effect.all([states.take(state, t0), states.take(state, t0)], { concurrency: 2 })
        const taken = [first!, second!].filter(Option.isSome)
        expect(taken).toHaveLength(1)
        expect(Redacted.value(taken[0]!.value.codeVerifier)).toBe("verifier")
        expect(Redacted.value(taken[0]!.value.carried!)).toBe("{\"dpop\":\"key\"}")
        expect(taken[0]!.value).toMatchObject({ projectId: project.id, platform: "instagram", route: "facebook_login", caller: "admin", expiresAt: DateTime.add(t0, { minutes: 10 }) })
        expect(yield* states.take(`state-${randomUUID()}`, t0)).toEqual(Option.none())
      }))
  })
}

/** ProjectAdmin writes what ProjectStore reads. */
export const projectCases: Cases<ProjectAdmin | ProjectStore> = (it) => {
  describe("ProjectAdmin and ProjectStore", () => {
    it.effect("projects round-trip with their guardrails", () =>
      Effect.gen(function*() {
        const admin = yield* ProjectAdmin
        const store = yield* ProjectStore
        const project = newProject()
        yield* admin.create(project)
        expect(yield* store.get(project.id)).toEqual(Option.some(project))
        const changed = new Project({ ...project, approval: "copilot", guardrails: { ...project.guardrails, daily_post_cap: 3 } })
        yield* admin.update(changed)
        expect(yield* store.get(project.id)).toEqual(Option.some(changed))
      }))
  })
}

/** PublishCheckpoints: one value per delivery, replaced, cleared, gone with its post. */
export const publishCheckpointCases: Cases<PublishCheckpoints | PostStore | StoredRows> = (it) => {
  describe("PublishCheckpoints", () => {
    it.effect("a delivery's value is kept, replaced and cleared, apart from the others'", () =>
      Effect.gen(function*() {
        const checkpoints = yield* PublishCheckpoints
        const posts = yield* PostStore
        const input = newPost({ projectId: newProject().id })
        yield* posts.create(input)
        const [one, two] = input.record.deliveries
        expect(yield* checkpoints.get(one!.id)).toEqual(Option.none())
        yield* checkpoints.put(one!.id, "container-1")
        yield* checkpoints.put(two!.id, "container-2")
        yield* checkpoints.put(one!.id, "container-3")
        expect(yield* checkpoints.get(one!.id)).toEqual(Option.some("container-3"))
        expect(yield* checkpoints.get(two!.id)).toEqual(Option.some("container-2"))
        yield* checkpoints.clear(one!.id)
        expect(yield* checkpoints.get(one!.id)).toEqual(Option.none())
        expect(yield* checkpoints.get(two!.id)).toEqual(Option.some("container-2"))
      }))
  })
}

/** PinterestBoards: an account's list as last put, in its order, replaced whole. */
export const pinterestBoardCases: Cases<PinterestBoards | AccountAdmin | ProjectAdmin> = (it) => {
  describe("PinterestBoards", () => {
    it.effect("an account's boards are none until put, then the last list put, apart from other accounts'", () =>
      Effect.gen(function*() {
        const boards = yield* PinterestBoards
        const admin = yield* AccountAdmin
        const project = newProject()
        yield* (yield* ProjectAdmin).create(project)
        const one = newAccount(project.id, "pins")
        const two = newAccount(project.id, "more-pins")
        yield* admin.connect(one, { access_token: "t" })
        yield* admin.connect(two, { access_token: "t" })
        expect(yield* boards.get(one.id)).toEqual(Option.none())
        const first = [{ id: "1", name: "Recipes", eligible: true, reason: null }, { id: "2", name: "Hidden", eligible: false, reason: "secret board" }]
        yield* boards.put(one.id, first)
        yield* boards.put(two.id, [{ id: "9", name: "Other", eligible: true, reason: null }])
        expect(yield* boards.get(one.id)).toEqual(Option.some(first))
        yield* boards.put(one.id, [first[1]!])
        expect(yield* boards.get(one.id)).toEqual(Option.some([first[1]]))
        expect(yield* boards.get(two.id)).toEqual(Option.some([{ id: "9", name: "Other", eligible: true, reason: null }]))
      }))
  })
}

/** PlatformQuotas: units spent per bucket and day within a limit, all-or-nothing, across callers. */
export const platformQuotaCases: Cases<PlatformQuotas> = (it) => {
  describe("PlatformQuotas", () => {
    it.effect("units are spent within the day's limit, never past it, per bucket and day", () =>
      Effect.gen(function*() {
        const quotas = yield* PlatformQuotas
        const bucket = `project-${randomUUID()}`
        expect(yield* quotas.used(bucket, "2026-11-24")).toBe(0)
        expect(yield* quotas.spend(bucket, "2026-11-24", 1600, 10_000)).toEqual({ spent: true, used: 1600 })
        expect(yield* quotas.spend(bucket, "2026-11-24", 8000, 10_000)).toEqual({ spent: true, used: 9600 })
        // 9,600 + 1,600 would pass 10,000: nothing is spent.
        expect(yield* quotas.spend(bucket, "2026-11-24", 1600, 10_000)).toEqual({ spent: false, used: 9600 })
        expect(yield* quotas.spend(bucket, "2026-11-24", 400, 10_000)).toEqual({ spent: true, used: 10_000 })
        // Counted whatever is left (a read already made).
        expect(yield* quotas.spend(bucket, "2026-11-24", 1, null)).toEqual({ spent: true, used: 10_001 })
        // Another day, another bucket: their own totals.
        expect(yield* quotas.spend(bucket, "2026-11-25", 1600, 10_000)).toEqual({ spent: true, used: 1600 })
        expect(yield* quotas.used(`${bucket}-other`, "2026-11-24")).toBe(0)
        // More than a whole day's allowance is never spent, even on an empty day.
        expect(yield* quotas.spend(`${bucket}-other`, "2026-11-24", 20_000, 10_000)).toEqual({ spent: false, used: 0 })
      }))

    it.effect("an exhausted day spends nothing more until the next; concurrent spends never overdraw", () =>
      Effect.gen(function*() {
        const quotas = yield* PlatformQuotas
        const bucket = `project-${randomUUID()}`
        yield* quotas.spend(bucket, "2026-11-24", 50, 10_000)
        yield* quotas.exhaust(bucket, "2026-11-24", 10_000)
        expect(yield* quotas.used(bucket, "2026-11-24")).toBe(10_000)
        expect((yield* quotas.spend(bucket, "2026-11-24", 1, 10_000)).spent).toBe(false)
        const other = `project-${randomUUID()}`
        const spends = yield* Effect.all(Array.from({ length: 10 }, () => quotas.spend(other, "2026-11-24", 1600, 10_000)), { concurrency: "unbounded" })
        expect(spends.filter((one) => one.spent)).toHaveLength(6)
        expect(yield* quotas.used(other, "2026-11-24")).toBe(9600)
      }))
  })
}

/** ApiKeyStore: keys by hash, revoked and touched. */
export const apiKeyCases: Cases<ApiKeyStore | ProjectAdmin | StoredRows> = (it) => {
  describe("ApiKeyStore", () => {
    it.effect("api keys are found by hash, listed without it, revoked and touched", () =>
      Effect.gen(function*() {
        const keys = yield* ApiKeyStore
        const projects = yield* ProjectAdmin
        const project = newProject()
        yield* projects.create(project)
        const secret = `hk_${randomUUID()}`
        const hash = ApiKeyHash.make(createHash("sha256").update(secret).digest("hex"))
        const id = newKeyId()
        yield* keys.create({
          id,
          projectId: project.id,
          name: "ci agent",
          hash,
          prefix: secret.slice(0, 7),
          kind: "agent",
          scopes: ["posts:read", "posts:write"],
          rateLimitPerMinute: 60,
          dailyPostCap: 10,
          createdAt: t0
        })
        const found = Option.getOrThrow(yield* keys.findByHash(hash))
        expect(found.principal.keyId).toBe(id)
        expect(found.principal.scopes).toEqual(["posts:read", "posts:write"])
        expect(found.principal.dailyPostCap).toBe(10)
        expect(found.revoked).toBe(false)
        const [raw] = yield* Effect.flatMap(StoredRows, (stored) => stored.rows("api_keys", "id", id))
        expect(raw!.key_hash).toBe(hash)
        expect(JSON.stringify(yield* keys.list(project.id))).not.toContain(hash)
        yield* keys.touch(id, DateTime.add(t0, { minutes: 5 }))
        yield* keys.revoke(project.id, id, DateTime.add(t0, { minutes: 6 }))
        const [summary] = yield* keys.list(project.id)
        expect(summary!.lastUsedAt).toEqual(DateTime.add(t0, { minutes: 5 }))
        expect(summary!.revokedAt).toEqual(DateTime.add(t0, { minutes: 6 }))
        expect(Option.getOrThrow(yield* keys.findByHash(hash)).revoked).toBe(true)
        expect((yield* Effect.flip(keys.revoke(newProject().id, id, t0)))._tag).toBe("ApiKeyNotFound")
      }))

    it.effect("a key's limits are edited after creation: omitted ones kept, null lifts the cap, found at once by hash", () =>
      Effect.gen(function*() {
        const keys = yield* ApiKeyStore
        const project = newProject()
        yield* Effect.flatMap(ProjectAdmin, (projects) => projects.create(project))
        const hash = ApiKeyHash.make(createHash("sha256").update(`hk_${randomUUID()}`).digest("hex"))
        const id = newKeyId()
        yield* keys.create({
          id, projectId: project.id, name: "edited", hash, prefix: "hk_agen", kind: "agent", scopes: ["posts:read"],
          rateLimitPerMinute: 60, dailyPostCap: 10, createdAt: t0
        })
        expect(Option.getOrThrow(yield* keys.findByHash(hash)).rateLimitPerMinute).toBe(60)
        const lowered = yield* keys.updateLimits(project.id, id, { rateLimitPerMinute: 3 })
        expect([lowered.rateLimitPerMinute, lowered.dailyPostCap]).toEqual([3, 10])
        const found = Option.getOrThrow(yield* keys.findByHash(hash))
        expect([found.rateLimitPerMinute, found.principal.dailyPostCap]).toEqual([3, 10])
        const uncapped = yield* keys.updateLimits(project.id, id, { dailyPostCap: null })
        expect([uncapped.rateLimitPerMinute, uncapped.dailyPostCap]).toEqual([3, null])
        expect(Option.getOrThrow(yield* keys.findByHash(hash)).principal.dailyPostCap).toBe(null)
        expect((yield* keys.updateLimits(project.id, id, { dailyPostCap: 5 })).dailyPostCap).toBe(5)
        expect((yield* Effect.flip(keys.updateLimits(newProject().id, id, { rateLimitPerMinute: 1 })))._tag).toBe("ApiKeyNotFound")
      }))
  })
}

/** RateLimitStore: fixed one-minute windows. */
export const rateLimitCases: Cases<RateLimitStore> = (it) => {
  describe("RateLimitStore", () => {
    it.effect("rate limits count a fixed one-minute window exactly under concurrency", () =>
      Effect.gen(function*() {
        const limits = yield* RateLimitStore
        const keyId = newKeyId()
        const now = at("2030-01-15T10:00:30.000Z")
        const verdicts = yield* Effect.all(Array.from({ length: 8 }, () => limits.hit(keyId, 5, now)), { concurrency: "unbounded" })
        expect(verdicts.filter((v) => v.allowed)).toHaveLength(5)
        expect(verdicts.map((v) => v.remaining).sort()).toEqual([0, 0, 0, 0, 1, 2, 3, 4])
        expect(verdicts.every((v) => DateTime.Equivalence(v.resetAt, at("2030-01-15T10:01:00.000Z")))).toBe(true)
        const next = yield* limits.hit(keyId, 5, at("2030-01-15T10:01:00.000Z"))
        expect(next).toMatchObject({ allowed: true, remaining: 4, limit: 5 })
      }))
  })
}

/** The ports of a complete storage adapter, and its stored rows. */
export type Storage =
  | PostStore
  | ProjectStore
  | ProjectAdmin
  | AccountStore
  | AccountAdmin
  | AccountConnections
  | ConnectionChecks
  | ConnectionStates
  | ApiKeyStore
  | RateLimitStore
  | DeliveryQueue
  | OutboxQueue
  | WebhookEndpoints
  | MetricsStore
  | PublishCheckpoints
  | PinterestBoards
  | PlatformQuotas
  | ApprovalChannels
  | StoredRows

/** Every port's cases: what a complete storage adapter passes. */
export const storageCases: Cases<Storage> = (it) => {
  postStoreCases(it)
  deliveryQueueCases(it)
  outboxQueueCases(it)
  accountCases(it)
  connectionCases(it)
  connectionCheckCases(it)
  projectCases(it)
  apiKeyCases(it)
  rateLimitCases(it)
  metricsStoreCases(it)
  publishCheckpointCases(it)
  pinterestBoardCases(it)
  platformQuotaCases(it)
  approvalChannelCases(it)
  webhookSecretCases(it)
}
