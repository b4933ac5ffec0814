import {
  AccountAdmin,
  AccountStore,
  createPost,
  type DeliveryStatus,
  Media,
  MediaAdmin,
  MediaId,
  noGuardrails,
  type PostId,
  type PostRecord,
  type PostStatus,
  Project,
  ProjectAdmin,
  type ProjectId,
  retryDelivery,
  takedownDelivery,
  WorkerHeartbeats
} from "@herald/core"
import { SimulatorServer } from "@herald/publishers"
import { DateTime, Duration, Effect, Layer, ManagedRuntime, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { heartbeatKind, workers } from "../../src/workers/index.js"
import { expectDocumentedWebhook } from "../DocumentedWebhooks.js"
import { eventsOf, loadRecord, seed, testOptions, world } from "./fixtures.js"

// The #sim-timeout answer is held well past the time limit, which answered calls beat with room
// to spare while the tests run side by side.
const simulatorOptions = { latency: { minMs: 5, maxMs: 20 }, retryAfterSeconds: 1, timeoutHoldMs: 3_000 }

const dispatcher = testOptions({
  worker: "e2e-worker",
  publishTimeout: Duration.seconds(1),
  recheckMin: Duration.millis(300),
  backoffBase: Duration.millis(200)
})

const stack = workers(dispatcher).pipe(Layer.provideMerge(world(simulatorOptions)))
type Services = Layer.Layer.Success<typeof stack>

let runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
beforeAll(async () => {
  runtime = ManagedRuntime.make(stack)
  await runtime.runtime()
}, 60_000)
afterAll(() => runtime.dispose())

const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)

const finalStatuses: ReadonlyArray<PostStatus> = ["posted", "partial", "failed"]

/** Polls until the post settles (or the predicate holds); the workers run on their own. */
const settled = (
  projectId: ProjectId,
  postId: PostId,
  until: (record: PostRecord) => boolean = (record) => finalStatuses.includes(record.post.status)
) =>
  loadRecord(projectId, postId).pipe(
    Effect.filterOrFail(until, () => "not yet" as const),
    Effect.retry(Schedule.spaced("50 millis")),
    Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error(`post ${postId} did not reach the state awaited`) })
  )

const statuses = (record: PostRecord): ReadonlyArray<DeliveryStatus> => record.deliveries.map((delivery) => delivery.status)

const simulatorRecord = (marker: string) =>
  Effect.map(SimulatorServer, (server) => server.network.publishes().find((entry) => entry.marker === marker))

// Side by side: each test has a project, accounts and posts of its own, and most of its time is
// waiting on the live clock (a schedule, a Retry-After, a time limit). A post scheduled so that
// the test can change its project first is due far enough ahead for the writes of all of them.
describe.concurrent("the dispatcher end to end (PGlite, the simulator over HTTP, the live clock)", () => {
  it("publishes a post now to two networks and writes post.published", () =>
    run(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["x", "acme"], ["bluesky", "acme.bsky.social"]] })
      const created = yield* createPost(human, { caption: "Hello, world", social_accounts: ["x:acme", "bluesky:acme.bsky.social"] })
      const record = yield* settled(project.id, created.record.post.id)
      expect(record.post.status).toBe("posted")
      expect(record.deliveries.map((delivery) => delivery.url)).toEqual([
        expect.stringMatching(/^https:\/\/x\.com\/acme\/status\/\d+$/),
        expect.stringMatching(/^https:\/\/bsky\.app\/profile\/acme\.bsky\.social\/post\/\w+$/)
      ])
      const events = yield* eventsOf(project.id)
      expect(events).toMatchObject([{ kind: "post.published", data: { post: { status: "posted", delivered: 2, targets: 2 } } }])
      const beats = yield* WorkerHeartbeats.pipe(Effect.flatMap((heartbeats) => heartbeats.list))
      expect(beats).toContainEqual(expect.objectContaining({ worker: "e2e-worker", kind: heartbeatKind }))
    })), 30_000)

  it("publishes a scheduled post at its time, not before", () =>
    run(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["threads", "acme"]] })
      const at = DateTime.addDuration(yield* DateTime.now, Duration.millis(1_500))
      const created = yield* createPost(human, { caption: "Later", social_accounts: ["threads:acme"], scheduled_at: DateTime.formatIso(at) })
      expect(created.record.post.status).toBe("scheduled")
      const record = yield* settled(project.id, created.record.post.id)
      expect(record.post.status).toBe("posted")
      expect(DateTime.toEpochMillis(record.deliveries[0]!.attempts[0]!.startedAt)).toBeGreaterThanOrEqual(DateTime.toEpochMillis(at))
    })), 30_000)

  it("a post that reaches some accounts ends partial and emits post.published with the totals", () =>
    run(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["x", "acme"], ["x", "partial_fail"]] })
      const created = yield* createPost(human, { caption: "Half way", social_accounts: ["x:acme", "x:partial_fail"] })
      const record = yield* settled(project.id, created.record.post.id)
      expect(record.post.status).toBe("partial")
      expect(statuses(record)).toEqual(["success", "failed"])
      expect(record.deliveries[1]!.error).toMatchObject({ category: "permission_missing", code: "account_restricted" })
      const events = yield* eventsOf(project.id)
      expect(events).toMatchObject([
        {
          kind: "post.published",
          data: {
            post: { status: "partial", delivered: 1, targets: 2 },
            deliveries: [{ error: null, error_category: null }, { error: { category: "platform_error" }, error_category: "permission_missing" }]
          }
        }
      ])
      events.forEach(expectDocumentedWebhook)
    })), 30_000)

  it("a rate-limited delivery waits for Retry-After, then succeeds", () =>
    run(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["linkedin", "acme"]] })
      const created = yield* createPost(human, { caption: "Busy #sim-ratelimit", social_accounts: ["linkedin:acme"] })
      const record = yield* settled(project.id, created.record.post.id)
      expect(record.post.status).toBe("posted")
      const [first, second] = record.deliveries[0]!.attempts
      expect(first).toMatchObject({ outcome: "failed", error: { category: "rate_limited" } })
      expect(second).toMatchObject({ outcome: "success" })
      expect(DateTime.toEpochMillis(second!.startedAt) - DateTime.toEpochMillis(first!.finishedAt!)).toBeGreaterThanOrEqual(1_000)
      expect(record.deliveries[0]!.retries).toBe(1)
    })), 30_000)

  it("a timeout leaves the delivery unknown, then reconciliation finds the post: published once", () =>
    run(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["facebook", "acme"]] })
      const created = yield* createPost(human, { caption: "Slow network #sim-timeout", social_accounts: ["facebook:acme"] })
      const postId = created.record.post.id
      const unknown = yield* settled(project.id, postId, (record) => record.deliveries[0]!.status === "unknown")
      expect(unknown.post.status).toBe("processing")
      expect(unknown.deliveries[0]!.error).toMatchObject({ category: "outcome_unknown", code: "outcome_unknown" })
      const record = yield* settled(project.id, postId)
      expect(record.post.status).toBe("posted")
      const delivery = record.deliveries[0]!
      expect(delivery.attempts.map((attempt) => attempt.outcome)).toEqual(["reconciled"])
      expect(yield* simulatorRecord(delivery.id)).toMatchObject({ attempts: 1, postIds: [delivery.platformPostId] })
    })), 30_000)

  it("an expired token fails with auth_expired, marks the account needs_reconnect and writes the event", () =>
    run(Effect.gen(function*() {
      const { accounts, human, project } = yield* seed({ accounts: [["x", "acme"]] })
      const created = yield* createPost(human, { caption: "Token trouble #sim-token-expired", social_accounts: ["x:acme"] })
      const record = yield* settled(project.id, created.record.post.id)
      expect(record.post.status).toBe("failed")
      expect(record.deliveries[0]!.error).toMatchObject({ category: "auth_expired", code: "token_expired" })
      expect(record.deliveries[0]!.error!.message).toContain("reconnect the account")
      const listed = yield* AccountStore.pipe(Effect.flatMap((store) => store.list(project.id)))
      expect(listed.map((account) => account.status)).toEqual(["needs_reconnect"])
      const events = yield* eventsOf(project.id)
      expect(events.map((event) => event.kind).sort()).toEqual(["account.needs_reconnect", "post.failed"])
      expect(events.find((event) => event.kind === "account.needs_reconnect")).toMatchObject({
        data: { account: { id: accounts[0]!.id, status: "needs_reconnect" } }
      })
      events.forEach(expectDocumentedWebhook)
      // The next post to that account fails at once, without a platform call.
      const next = yield* createPost(human, { caption: "Another", social_accounts: ["x:acme"] })
      const failed = yield* settled(project.id, next.record.post.id)
      expect(failed.deliveries[0]!.error).toMatchObject({ category: "auth_expired", code: "account_needs_reconnect" })
      expect(yield* simulatorRecord(failed.deliveries[0]!.id)).toBeUndefined()
    })), 30_000)

  it("a guardrail tightened after the post was accepted blocks it at dispatch: content_rejected", () =>
    run(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
      const at = DateTime.addDuration(yield* DateTime.now, Duration.seconds(2))
      const created = yield* createPost(human, { caption: "Our crypto giveaway", social_accounts: ["x:acme"], scheduled_at: DateTime.formatIso(at) })
      yield* ProjectAdmin.pipe(Effect.flatMap((admin) => admin.update(new Project({ ...project, guardrails: { ...noGuardrails, banned_words: ["crypto"] } }))))
      const record = yield* settled(project.id, created.record.post.id)
      expect(record.post.status).toBe("failed")
      const { error, id } = record.deliveries[0]!
      expect(error).toMatchObject({ category: "content_rejected", code: "guardrail_blocked" })
      expect(error!.message).toContain(`banned_words: caption contains banned word "crypto"`)
      expect(yield* simulatorRecord(id)).toBeUndefined()
    })), 30_000)

  it("a banned topic added after approval is classified again at dispatch: content_rejected naming the rule, not published", () =>
    run(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
      const at = DateTime.addDuration(yield* DateTime.now, Duration.seconds(2))
      const caption = "Polls open tomorrow: vote for our senator in the election"
      const created = yield* createPost(human, { caption, social_accounts: ["x:acme"], scheduled_at: DateTime.formatIso(at) })
      yield* ProjectAdmin.pipe(Effect.flatMap((admin) => admin.update(new Project({ ...project, guardrails: { ...noGuardrails, banned_topics: ["politics"] } }))))
      const record = yield* settled(project.id, created.record.post.id)
      expect(record.post.status).toBe("failed")
      const { error, id } = record.deliveries[0]!
      expect(error).toMatchObject({ category: "content_rejected", code: "guardrail_blocked" })
      expect(error!.message).toContain(`banned_topics: caption is about banned topic "politics" (score `)
      expect(yield* simulatorRecord(id)).toBeUndefined()
    })), 30_000)

  it("a failed delivery retried after the account is reconnected goes out", () =>
    run(Effect.gen(function*() {
      const { accounts, human, project } = yield* seed({ accounts: [["pinterest", "acme"], ["x", "acme"]] })
      yield* AccountAdmin.pipe(Effect.flatMap((admin) => admin.setStatus(accounts[1]!.id, "disconnected")))
      const created = yield* createPost(human, { caption: "Second chance", social_accounts: ["x:acme"] })
      const failed = yield* settled(project.id, created.record.post.id)
      expect(failed.post.status).toBe("failed")
      expect(failed.deliveries[0]!.error).toMatchObject({ category: "auth_expired", code: "account_disconnected" })
      yield* AccountAdmin.pipe(Effect.flatMap((admin) => admin.setStatus(accounts[1]!.id, "active")))
      yield* retryDelivery(human, failed.deliveries[0]!.id)
      const record = yield* settled(project.id, created.record.post.id, (record) => record.post.status === "posted")
      expect(record.deliveries[0]!.attempts.map((attempt) => attempt.outcome)).toEqual(["failed", "success"])
      expect((yield* eventsOf(project.id)).map((event) => event.kind)).toEqual(["post.failed", "post.published"])
    })), 30_000)

  it("takes a delivered post down through the simulator and keeps the receipt", () =>
    run(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["tiktok", "acme"]] })
      const media = yield* insertVideo(project.id)
      const created = yield* createPost(human, { caption: "Dance", social_accounts: ["tiktok:acme"], media_ids: [media] })
      const record = yield* settled(project.id, created.record.post.id)
      expect(record.post.status).toBe("posted")
      const delivery = record.deliveries[0]!
      expect(delivery.url).toMatch(/^https:\/\/www\.tiktok\.com\/@acme\/video\/\d{19}$/)
      const { delivery: takenDown } = yield* takedownDelivery(human, delivery.id)
      expect(takenDown.status).toBe("taken_down")
      const server = yield* SimulatorServer
      expect(server.network.post(delivery.platformPostId!)?.deleted_at).not.toBeNull()
      const after = yield* loadRecord(project.id, created.record.post.id)
      expect(after.deliveries[0]).toMatchObject({ status: "taken_down", url: delivery.url, takedown: { by: human.keyId } })
    })), 30_000)
})

/** A stored 30-second video, as POST /media would have written it. */
const insertVideo = (projectId: ProjectId) =>
  Effect.gen(function*() {
    const media = new Media({
      id: MediaId.make(randomUUID()),
      projectId,
      kind: "video",
      mime: "video/mp4",
      bytes: 1000,
      filename: "clip.mp4",
      width: 1080,
      height: 1920,
      durationSeconds: 30,
      codec: "h264",
      altText: null,
      peopleTags: [],
      thumbnailTimestampMs: null,
      storageKey: "media/clip",
      createdAt: yield* DateTime.now
    })
    yield* MediaAdmin.pipe(Effect.flatMap((admin) => admin.save(media)))
    return media.id
  })
