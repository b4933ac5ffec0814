import { describe, expect, it } from "@effect/vitest"
import { type PublishRequest, type SocialAccount } from "@herald/core"
import { Cause, Duration, Effect, Exit, Option, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { makeHarness, mediaItem } from "./harness.js"
import { driven } from "../kit/Driven.js"
import { patientDeadlines } from "../kit/Deadlines.js"

type Harness = Awaited<ReturnType<typeof makeHarness>>

const withHarness = <A, E>(options: Parameters<typeof makeHarness>[0], body: (harness: Harness, account: SocialAccount) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.gen(function*() {
    const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness(options, patientDeadlines)), (opened) => Effect.promise(() => opened.stop()))
    const account = yield* Effect.promise(() => harness.connect())
    return yield* body(harness, account)
  }))

const request = (account: SocialAccount, text: string | null, extra: Partial<PublishRequest> = {}): PublishRequest => ({
  account,
  text,
  media: [],
  configuration: undefined,
  marker: randomUUID(),
  ...extra
})

const failureOf = <A, E>(exit: Exit.Exit<A, E>) => Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined

describe("Threads' container flow", () => {
  it.effect("records the container before waiting; the next attempt resumes on it and never creates a second", () =>
    withHarness({ processingReads: 10 }, (harness, account) =>
      Effect.gen(function*() {
        const sent = request(account, "Still processing")
        const first = yield* driven(harness.route.adapters.publisher.publish(sent))
        expect(failureOf(first)).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "transient", code: "container_processing" } })
        expect(harness.fake.containers.size).toBe(1)
        expect(harness.data.checkpoints.get(sent.marker)).toContain([...harness.fake.containers.keys()][0])
        const second = yield* driven(harness.route.adapters.publisher.publish(sent))
        expect(Exit.isSuccess(second)).toBe(true)
        expect(harness.fake.containers.size).toBe(1)
        expect(harness.fake.livePosts()).toHaveLength(1)
        expect(harness.data.checkpoints.has(sent.marker)).toBe(false)
      })))

  it.effect("a container not FINISHED after 10 minutes fails as transient and is forgotten", () =>
    withHarness({ processingReads: 100_000 }, (harness, account) =>
      Effect.gen(function*() {
        const sent = request(account, "Never finishes")
        yield* driven(harness.route.adapters.publisher.publish(sent))
        yield* TestClock.adjust(Duration.minutes(10))
        const late = yield* driven(harness.route.adapters.publisher.publish(sent))
        expect(failureOf(late)).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "transient", code: "container_timeout" } })
        expect(harness.data.checkpoints.has(sent.marker)).toBe(false)
        expect(harness.fake.livePosts()).toHaveLength(0)
      })))

  it.effect("a video container gets 30 minutes, not 10", () =>
    withHarness({ processingReads: 100_000 }, (harness, account) =>
      Effect.gen(function*() {
        const video = harness.withBytes(mediaItem("video"), new Uint8Array([0, 0, 0, 24, 102, 116, 121, 112]))
        const sent = request(account, "A long video", { media: [video] })
        yield* driven(harness.route.adapters.publisher.publish(sent))
        yield* TestClock.adjust(Duration.minutes(11))
        const still = yield* driven(harness.route.adapters.publisher.publish(sent))
        expect(failureOf(still)).toMatchObject({ error: { code: "container_processing" } })
        yield* TestClock.adjust(Duration.minutes(20))
        const late = yield* driven(harness.route.adapters.publisher.publish(sent))
        expect(failureOf(late)).toMatchObject({ error: { code: "container_timeout" } })
        expect(harness.fake.containers.size).toBe(1)
      })))

  it.effect("a container in ERROR is the media's refusal with Meta's reason", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const empty = harness.withBytes(mediaItem("video"), new Uint8Array(0))
        const exit = yield* driven(harness.route.adapters.publisher.publish(request(account, "Broken video", { media: [empty] })))
        expect(failureOf(exit)).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "FAILED_DOWNLOADING_VIDEO" } })
      })))

  it.effect("an image Threads cannot download is refused at create with Meta's subcode", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const empty = harness.withBytes(mediaItem("image"), new Uint8Array(0))
        const exit = yield* driven(harness.route.adapters.publisher.publish(request(account, "Broken image", { media: [empty] })))
        const failure = failureOf(exit) as { error: { category: string; code: string; message: string } }
        expect(failure.error).toMatchObject({ category: "media_rejected", code: "1/2207052" })
        expect(failure.error.message).toMatch(/could not be fetched.*fbtrace_id A/)
      })))

  it.effect("a carousel's items are containers of their own, FINISHED before the carousel's", () =>
    withHarness({ processingReads: 2 }, (harness, account) =>
      Effect.gen(function*() {
        const items = [
          harness.withBytes(mediaItem("image", { altText: "first" }), new Uint8Array([255, 216])),
          harness.withBytes(mediaItem("video"), new Uint8Array([0, 0, 0, 24])),
          harness.withBytes(mediaItem("image"), new Uint8Array([137, 80]))
        ]
        const exit = yield* driven(harness.route.adapters.publisher.publish(request(account, "Three things", { media: items })))
        expect(Exit.isSuccess(exit)).toBe(true)
        const [thread] = harness.fake.livePosts()
        expect(thread?.children.map((child) => child.fields["media_type"])).toEqual(["IMAGE", "VIDEO", "IMAGE"])
        expect(thread?.children[0]?.fields["alt_text"]).toBe("first")
        expect(thread?.container.fields).toMatchObject({ media_type: "CAROUSEL", text: "Three things" })
      })))

  it.effect("the receipt's URL is the post's permalink", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Where is it"))
        const [thread] = harness.fake.livePosts()
        expect(published.url).toBe(`https://www.threads.net/@ada.lovelace/post/${thread?.shortcode}`)
        expect(published.platformPostId).toBe(thread?.id)
      })))

  it.live("the 250-posts-in-24-hours quota is rate_limited until the oldest post of the window ages out, before any container is made", () =>
    withHarness({ quota: 1 }, (harness, account) =>
      Effect.gen(function*() {
        yield* harness.route.adapters.publisher.publish(request(account, "The one allowed"))
        harness.fake.age(harness.fake.livePosts()[0]!.id, Duration.toMillis(Duration.hours(20)))
        const failure = yield* Effect.flip(harness.route.adapters.publisher.publish(request(account, "One too many")))
        expect(failure).toMatchObject({
          _tag: "PublishFailed",
          transient: true,
          error: { category: "rate_limited", code: "threads_publishing_limit" }
        })
        const wait = (failure as { retryAfterMs: number }).retryAfterMs
        expect(wait).toBeGreaterThan(Duration.toMillis(Duration.hours(4)) - 60_000)
        expect(wait).toBeLessThanOrEqual(Duration.toMillis(Duration.hours(4)))
        expect(harness.fake.containers.size).toBe(1)
      })))
})

describe("Threads' tokens, metrics and takedown", () => {
  it.effect("connecting stores the long-lived token (60 days), never the one-hour one", () =>
    withHarness({}, (harness, account) =>
      Effect.sync(() => {
        expect(harness.fake.tokenCalls).toEqual(["authorization_code", "th_exchange_token"])
        const stored = harness.data.credentials.get(account.id) as { access_token: string; expires_at: string; user_id: string; username: string }
        expect(stored.access_token.startsWith("THL")).toBe(true)
        expect(stored).toMatchObject({ user_id: harness.fake.user.id, username: "ada.lovelace" })
        expect(Date.parse(stored.expires_at)).toBeGreaterThan(Date.now() + 59 * 24 * 3600 * 1000)
        expect(account.username).toBe("ada.lovelace")
      })))

  it.effect("insights map onto Herald's names: replies are comments, reposts + quotes + shares are shares", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Counted"))
        harness.fake.insights.set(published.platformPostId, { views: 120, likes: 9, replies: 4, reposts: 2, quotes: 1, shares: 3 })
        const reading = yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId })
        expect(reading).toMatchObject({
          _tag: "Reported",
          metrics: { views: 120, likes: 9, comments: 4, shares: 6, reach: null, saves: null, clicks: null, videoViews: null }
        })
        harness.fake.revokeScope("threads_manage_insights")
        const without = yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId })
        expect(without).toMatchObject({ _tag: "Unreportable", reason: "unsupported" })
      })))

  it.effect("a takedown deletes the post; a second finds it gone", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Short-lived"))
        yield* harness.route.adapters.publisher.takedown!(account, published.platformPostId)
        expect(harness.fake.livePosts()).toHaveLength(0)
        const again = yield* Effect.flip(harness.route.adapters.publisher.takedown!(account, published.platformPostId))
        expect(again._tag).toBe("AlreadyGone")
      })))

  it.effect("the probe says what is granted: without threads_content_publish, publishing is missing", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Alive", granted: ["threads_basic", "threads_content_publish"] })
        harness.fake.revokeScope("threads_content_publish")
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Alive", granted: ["threads_basic"] })
        harness.fake.revokeGrant()
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Refused" })
      })))
})
