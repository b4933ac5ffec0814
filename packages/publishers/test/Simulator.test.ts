import { describe, expect, layer } from "@effect/vitest"
import { type Platform, platforms } from "@herald/core"
import { Effect, Either, Option, TestServices } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { makeSimulatorPublisher, Simulator, SimulatorServer } from "../src/index.js"
import { account, media, publisherFor, request } from "./fixtures.js"

/** The simulator's own client, with the metrics and probe calls beyond the Publisher port (it.scoped: its connections close with the test). */
const simulatorClient = Effect.flatMap(SimulatorServer, (server) => makeSimulatorPublisher({ baseUrl: server.url }))

const urlPatterns: Record<Platform, RegExp> = {
  x: /^https:\/\/x\.com\/acme_x\/status\/\d{19}$/,
  instagram: /^https:\/\/www\.instagram\.com\/p\/[\w-]{11}\/$/,
  facebook: /^https:\/\/www\.facebook\.com\/acme_facebook\/posts\/\d{16}$/,
  threads: /^https:\/\/www\.threads\.net\/@acme_threads\/post\/[\w-]{11}$/,
  pinterest: /^https:\/\/www\.pinterest\.com\/pin\/\d{18}\/$/,
  tiktok: /^https:\/\/www\.tiktok\.com\/@acme_tiktok\/video\/\d{19}$/,
  youtube: /^https:\/\/www\.youtube\.com\/watch\?v=[\w-]{11}$/,
  linkedin: /^https:\/\/www\.linkedin\.com\/feed\/update\/urn:li:share:\d{19}\/$/,
  bluesky: /^https:\/\/bsky\.app\/profile\/acme_bluesky\/post\/[a-z2-7]{13}$/
}

const simulator = Simulator.inProcess({ latency: { minMs: 0, maxMs: 0 }, retryAfterSeconds: 7, timeoutHoldMs: 400 })

layer(simulator)("the simulator route", (it) => {
  describe("publishing", () => {
    it.effect("publishes to all nine platforms with live-looking URLs and records each publish by marker", () =>
      Effect.gen(function*() {
        const server = yield* SimulatorServer
        for (const platform of platforms) {
          const target = account(platform)
          const needsVideo = platform === "youtube" || platform === "tiktok"
          const sent = request(target, "Hello from Herald", {
            media: platform === "instagram" || platform === "pinterest" ? [media("image")] : needsVideo ? [media("video", 30)] : []
          })
          const publisher = yield* publisherFor(target)
          const published = yield* publisher.publish(sent)
          expect(published.url, platform).toMatch(urlPatterns[platform])
          const record = server.network.publishes().find((entry) => entry.marker === sent.marker)
          expect(record).toMatchObject({ platform, attempts: 1, postIds: [published.platformPostId] })
        }
      }))

    it.effect("enforces the platform's rules through core's validation", () =>
      Effect.gen(function*() {
        const x = account("x")
        const tooLong = yield* Effect.flip((yield* publisherFor(x)).publish(request(x, "a".repeat(281))))
        expect(tooLong).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "content_rejected", code: "invalid_post" } })
        expect(tooLong._tag === "PublishFailed" && tooLong.error.message).toContain("x prints at most 280 characters")
        const instagram = account("instagram")
        const textOnly = yield* Effect.flip((yield* publisherFor(instagram)).publish(request(instagram, "words only")))
        expect(textOnly).toMatchObject({ error: { category: "media_rejected", code: "invalid_media" } })
        const story = yield* (yield* publisherFor(instagram)).publish(
          request(instagram, null, { media: [media("image")], configuration: { placement: "stories" } })
        )
        expect(story.url).toMatch(/^https:\/\/www\.instagram\.com\/stories\/acme_instagram\/\d{19}\/$/)
      }))

    it.effect("refuses a route it does not serve with a clear, permanent error", () =>
      Effect.gen(function*() {
        const direct = account("x", "acme", "direct")
        const failure = yield* Effect.flip((yield* publisherFor(direct)).publish(request(direct, "hi")))
        expect(failure).toMatchObject({ transient: false, error: { category: "permission_missing", code: "route_unavailable" } })
      }))
  })

  describe("triggers", () => {
    it.effect("#sim-ratelimit answers 429 with Retry-After once, then publishes", () =>
      Effect.gen(function*() {
        const x = account("x")
        const publisher = yield* publisherFor(x)
        const sent = request(x, "launch day #sim-ratelimit")
        const limited = yield* Effect.flip(publisher.publish(sent))
        expect(limited).toMatchObject({ transient: true, retryAfterMs: 7000, error: { category: "rate_limited" } })
        expect((yield* publisher.publish(sent)).url).toMatch(urlPatterns.x)
      }))

    it.effect("#sim-5xx fails transiently once; #sim-down always", () =>
      Effect.gen(function*() {
        const x = account("x")
        const publisher = yield* publisherFor(x)
        const once = request(x, "hello #sim-5xx")
        expect(yield* Effect.flip(publisher.publish(once))).toMatchObject({ transient: true, error: { category: "transient" } })
        yield* publisher.publish(once)
        const down = request(x, "hello #sim-down")
        for (let attempt = 0; attempt < 3; attempt++) {
          expect(yield* Effect.flip(publisher.publish(down))).toMatchObject({ transient: true })
        }
      }))

    it.scoped("token expiry, rejection and a restricted account are permanent, each in its category", () =>
      Effect.gen(function*() {
        const x = account("x")
        const publisher = yield* publisherFor(x)
        expect(yield* Effect.flip(publisher.publish(request(x, "hi #sim-token-expired")))).toMatchObject({
          transient: false,
          error: { category: "auth_expired", code: "token_expired" }
        })
        expect(yield* Effect.flip(publisher.publish(request(x, "hi #sim-reject")))).toMatchObject({
          transient: false,
          error: { category: "content_rejected", code: "content_rejected" }
        })
        const restricted = account("x", "partial_fail")
        expect(yield* Effect.flip(publisher.publish(request(restricted, "hi")))).toMatchObject({
          transient: false,
          error: { category: "permission_missing", code: "account_restricted" }
        })
        const expired = account("bluesky", "expired_bob")
        expect(yield* Effect.flip((yield* simulatorClient).probe(expired))).toMatchObject({ error: { category: "auth_expired" } })
        yield* (yield* simulatorClient).probe(x)
      }))

    it.effect("#sim-timeout creates the post but answers too late; reconcile finds it by marker", () =>
      Effect.gen(function*() {
        const server = yield* SimulatorServer
        const x = account("x")
        const publisher = yield* publisherFor(x)
        const sent = request(x, "slow network #sim-timeout")
        // The live clock: the hold is real time on the server.
        const outcome = yield* publisher.publish(sent).pipe(Effect.timeoutOption("150 millis"), TestServices.provideLive)
        expect(Option.isNone(outcome)).toBe(true)
        const found = yield* publisher.reconcile!(sent)
        expect(Option.map(found, (post) => post.platformPostId)).toEqual(
          Option.some(server.network.publishes().find((entry) => entry.marker === sent.marker)!.postIds[0])
        )
        expect(yield* publisher.reconcile!(request(x, "never sent"))).toEqual(Option.none())
      }))
  })

  describe("transport", () => {
    /** A server that takes each request and drops its connection without an answer. */
    const dropping = Effect.acquireRelease(
      Effect.promise(() =>
        new Promise<Http.Server>((resolve) => {
          const server = Http.createServer((incoming) => incoming.socket.destroy())
          server.listen(0, "127.0.0.1", () => resolve(server))
        })
      ),
      (server) => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
    )

    it.scoped("a refused connection never carried the call: transient, safe to send again", () =>
      Effect.gen(function*() {
        const server = yield* dropping
        const { port } = server.address() as AddressInfo
        yield* Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
        const x = account("x")
        const failure = yield* Effect.flip((yield* makeSimulatorPublisher({ baseUrl: `http://127.0.0.1:${port}` })).publish(request(x, "hi")))
        expect(failure).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "transient", code: "network_unreachable" } })
      }))

    it.scoped("a connection dropped after the request left is an unknown outcome, to be reconciled", () =>
      Effect.gen(function*() {
        const { port } = (yield* dropping).address() as AddressInfo
        const x = account("x")
        const failure = yield* Effect.flip((yield* makeSimulatorPublisher({ baseUrl: `http://127.0.0.1:${port}` })).publish(request(x, "hi")))
        expect(failure._tag).toBe("OutcomeUnknown")
      }))
  })

  describe("after publishing", () => {
    it.effect("takes posts down, after which they are gone from reconcile and metrics", () =>
      Effect.gen(function*() {
        const x = account("x")
        const publisher = yield* publisherFor(x)
        const sent = request(x, "to be removed")
        const published = yield* publisher.publish(sent)
        yield* publisher.takedown!(x, published.platformPostId)
        expect(yield* publisher.reconcile!(sent)).toEqual(Option.none())
        const again = yield* Effect.either(publisher.takedown!(x, published.platformPostId))
        expect(Either.isLeft(again)).toBe(true)
      }))

    it.scoped("reports metrics that grow over time, null where the platform reports nothing", () =>
      Effect.gen(function*() {
        const server = yield* SimulatorServer
        const bluesky = account("bluesky")
        const published = yield* (yield* publisherFor(bluesky)).publish(request(bluesky, "metrics"))
        const now = Date.now()
        const early = server.network.metrics("bluesky", published.platformPostId, now + 60_000).body as Record<string, number | null>
        const later = server.network.metrics("bluesky", published.platformPostId, now + 6 * 3_600_000).body as Record<string, number | null>
        expect(early.views).toBeNull()
        expect(later.likes!).toBeGreaterThan(early.likes!)
        const x = account("x")
        const tweet = yield* (yield* publisherFor(x)).publish(request(x, "metrics"))
        const viaHttp = yield* (yield* simulatorClient).metrics(x, tweet.platformPostId)
        expect(viaHttp.saves).toBeNull()
        expect(viaHttp.views).toBeGreaterThanOrEqual(0)
      }))
  })
})
