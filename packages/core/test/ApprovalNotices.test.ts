import { describe, expect, it } from "@effect/vitest"
import {
  ApprovalChannel,
  ApprovalChannelId,
  ApprovalChannels,
  ApprovalMessageFailed,
  ApprovalMessengers,
  type ApprovalNotice,
  createPost,
  decidePost,
  MediaStorage,
  notifyApprovers,
  sendApprovalMessage
} from "@herald/core"
import { makeInMemoryApprovalChannels } from "@herald/core/memory"
import { DateTime, Duration, Effect, Layer, Redacted } from "effect"
import { makeWorld } from "./World.js"

/** Messengers that record what they were asked to send, failing while `failing` is set. */
const recording = () => {
  const sent: Array<{ readonly kind: string; readonly address: string; readonly notice: ApprovalNotice }> = []
  const state = { failing: false }
  const layer = Layer.succeed(ApprovalMessengers, ApprovalMessengers.of({
    emailConfigured: true,
    send: (kind, address, notice) =>
      state.failing
        ? Effect.fail(new ApprovalMessageFailed({ reason: "the SMTP server did not take the mail: 451 try later" }))
        : Effect.sync(() => void sent.push({ kind, address: Redacted.value(address), notice }))
  }))
  return { sent, state, layer }
}

const setup = () => {
  const world = makeWorld({ approval: "copilot", platforms: ["x"], signature: "— Acme" })
  const messengers = recording()
  const layer = Layer.mergeAll(world.layer, makeInMemoryApprovalChannels(world.data), messengers.layer, MediaStorage.unconfigured)
  const addChannels = Effect.flatMap(ApprovalChannels, (channels) =>
    Effect.all([
      channels.add(
        new ApprovalChannel({
          id: ApprovalChannelId.make("40000000-0000-4000-8000-000000000001"),
          projectId: world.projectId,
          kind: "email",
          recipient: "dana@example.com",
          createdAt: DateTime.unsafeMake(0)
        }),
        Redacted.make("dana@example.com")
      ),
      channels.add(
        new ApprovalChannel({
          id: ApprovalChannelId.make("40000000-0000-4000-8000-000000000002"),
          projectId: world.projectId,
          kind: "chat",
          recipient: "#approvals",
          createdAt: DateTime.unsafeMake(0)
        }),
        Redacted.make("https://hooks.example.com/secret")
      )
    ]))
  return { world, messengers, layer, addChannels }
}

const pass = Effect.flatMap(DateTime.now, (now) => notifyApprovers({ now, limit: 10, leaseMillis: 60_000, worker: "w1" }, 4))

describe("approval notices", () => {
  it.effect("a held post is announced once per channel, as each target prints it, each message with its own link", () => {
    const { addChannels, layer, messengers, world } = setup()
    return Effect.gen(function*() {
      yield* addChannels
      const { record } = yield* createPost(world.agent, { caption: "Launch day", social_accounts: ["x:acme_x"] })
      expect(yield* pass).toBe(2)
      expect(messengers.sent.map(({ address, kind }) => [kind, address]).sort()).toEqual([
        ["chat", "https://hooks.example.com/secret"],
        ["email", "dana@example.com"]
      ])
      const [first, second] = messengers.sent
      expect(first!.notice).toMatchObject({
        projectName: "Acme",
        postId: record.post.id,
        targets: [{ network: "X", username: "acme_x", text: "Launch day\n\n— Acme" }],
        scheduledAt: null
      })
      expect(first!.notice.link).not.toBe(second!.notice.link)
      // Nothing is owed any more: the next pass sends nothing.
      expect(yield* pass).toBe(0)
      expect(messengers.sent).toHaveLength(2)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a post decided before its message went out is skipped, not announced", () => {
    const { addChannels, layer, messengers, world } = setup()
    return Effect.gen(function*() {
      yield* addChannels
      const { record } = yield* createPost(world.agent, { caption: "Too late", social_accounts: ["x:acme_x"] })
      // Queued while held, decided before the notifier's turn came.
      yield* Effect.flatMap(ApprovalChannels, (channels) => Effect.flatMap(DateTime.now, channels.fanOut))
      yield* decidePost(world.human, record.post.id, { decision: "approve" })
      expect(yield* pass).toBe(2)
      expect(messengers.sent).toEqual([])
      // Skipped is final: nothing is left to send.
      expect(yield* pass).toBe(0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a failed send is tried again later with backoff, then given up after the fifth try", () => {
    const { addChannels, layer, messengers, world } = setup()
    return Effect.gen(function*() {
      yield* addChannels
      yield* createPost(world.agent, { caption: "Flaky", social_accounts: ["x:acme_x"] })
      messengers.state.failing = true
      const channels = yield* ApprovalChannels
      const now = yield* DateTime.now
      yield* channels.fanOut(now)
      const [claimed] = yield* channels.claimDue({ now, limit: 1, leaseMillis: 60_000, worker: "w1" })
      const retry = yield* sendApprovalMessage(claimed!)
      expect(retry._tag).toBe("Retry")
      if (retry._tag !== "Retry") return
      expect(retry.error).toContain("451 try later")
      const wait = DateTime.distanceDuration(retry.at, retry.dueAt)
      expect(Duration.between(wait, { minimum: Duration.seconds(30), maximum: Duration.minutes(1) })).toBe(true)
      const last = yield* sendApprovalMessage({ ...claimed!, attempts: 4 })
      expect(last).toMatchObject({ _tag: "GaveUp", error: expect.stringContaining("451") })
      // Once it works again, a due retry goes out.
      messengers.state.failing = false
      yield* channels.complete(claimed!.id, "w1", retry)
      expect(yield* Effect.flatMap(DateTime.now, (at) => notifyApprovers({ now: DateTime.add(at, { hours: 1 }), limit: 10, leaseMillis: 60_000, worker: "w1" }, 4)))
        .toBeGreaterThanOrEqual(1)
      expect(messengers.sent.map(({ kind }) => kind)).toContain(claimed!.channel.kind)
    }).pipe(Effect.provide(layer))
  })
})
