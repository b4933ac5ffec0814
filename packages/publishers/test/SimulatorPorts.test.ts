import { describe, expect, layer } from "@effect/vitest"
import {
  ConnectionProbes,
  type DeliveryErrorCategory,
  type Media,
  MetricsSources,
  missingPermissions,
  platforms,
  type PublishRequest,
  type SocialAccount
} from "@herald/core"
import { DateTime, Effect, Option, TestServices } from "effect"
import { makeSimulatorPublisher, Simulator, SimulatorServer, triggers, triggerUsernames } from "../src/index.js"
import { account, media, publisherFor, request } from "./fixtures.js"

/** A post the target's platform accepts, or one with the media given. */
const post = (target: SocialAccount, text: string | null, attached?: ReadonlyArray<Media>): PublishRequest =>
  request(target, text, {
    media: attached ??
      (target.platform === "instagram" || target.platform === "pinterest"
        ? [media("image")]
        : target.platform === "youtube" || target.platform === "tiktok"
        ? [media("video", 30)]
        : [])
  })

const metricsFor = (target: SocialAccount) => Effect.map(MetricsSources, (sources) => sources.forAccount(target))
const probeFor = (target: SocialAccount) => Effect.map(ConnectionProbes, (probes) => probes.forAccount(target))

/** The category of a publish that fails. */
const refusedAs = (sent: PublishRequest) =>
  Effect.flatMap(publisherFor(sent.account), (publisher) => Effect.flip(publisher.publish(sent))).pipe(
    Effect.map((failure): DeliveryErrorCategory | "outcome_unknown" => failure._tag === "PublishFailed" ? failure.error.category : "outcome_unknown")
  )

layer(Simulator.inProcess({ latency: { minMs: 0, maxMs: 0 }, timeoutHoldMs: 400 }))("the simulator behind core's ports", (it) => {
  describe("Publisher", () => {
    it.effect("each failure the simulator can answer with maps to its category", () =>
      Effect.gen(function*() {
        const x = account("x")
        const cases: ReadonlyArray<readonly [string, PublishRequest, DeliveryErrorCategory]> = [
          ["401 token_expired", post(x, `hi ${triggers.tokenExpired}`), "auth_expired"],
          ["401 on every call of an expired_ account", post(account("x", `${triggerUsernames.expiredPrefix}amy`), "hi"), "auth_expired"],
          ["403 account_restricted", post(account("x", triggerUsernames.restricted), "hi"), "permission_missing"],
          ["403 missing_permission", post(account("x", `${triggerUsernames.readOnlyPrefix}bob`), "hi"), "permission_missing"],
          ["a route this build does not serve", post(account("x", "acme", "direct"), "hi"), "permission_missing"],
          ["429 rate_limited", post(x, `hi ${triggers.rateLimit}`), "rate_limited"],
          ["422 content_rejected", post(x, `hi ${triggers.reject}`), "content_rejected"],
          ["400 invalid_post", post(x, "a".repeat(281)), "content_rejected"],
          ["400 invalid_media", post(account("instagram"), "words only", []), "media_rejected"],
          ["503 once", post(x, `hi ${triggers.serverError}`), "transient"],
          ["503 always", post(x, `hi ${triggers.down}`), "transient"]
        ]
        for (const [what, sent, category] of cases) expect(yield* refusedAs(sent), what).toBe(category)
      }))

    it.effect("a call answered too late is an unknown outcome", () =>
      Effect.gen(function*() {
        const x = account("x")
        const publisher = yield* publisherFor(x)
        const late = yield* publisher.publish(post(x, `slow ${triggers.timeout}`)).pipe(Effect.timeoutOption("150 millis"), TestServices.provideLive)
        expect(Option.isNone(late)).toBe(true)
      }))

    it.scoped("a 404 from the platform is not_found", () =>
      Effect.gen(function*() {
        const server = yield* SimulatorServer
        const x = account("x")
        const lost = yield* makeSimulatorPublisher({ baseUrl: `${server.url}/nowhere` })
        expect(yield* Effect.flip(lost.publish(post(x, "hi")))).toMatchObject({
          _tag: "PublishFailed",
          transient: false,
          error: { category: "not_found", code: "not_found" }
        })
      }))
  })

  describe("MetricsSource", () => {
    it.effect("reads every platform's counts, null where the platform reports none, and nothing once the post is gone", () =>
      Effect.gen(function*() {
        for (const platform of platforms) {
          const target = account(platform)
          const published = yield* Effect.flatMap(publisherFor(target), (publisher) => publisher.publish(post(target, "counted")))
          const source = Option.getOrThrow(yield* metricsFor(target))
          const reading = yield* source.fetch({ account: target, platformPostId: published.platformPostId })
          expect(reading._tag, platform).toBe("Reported")
          if (reading._tag !== "Reported") continue
          const server = yield* SimulatorServer
          const raw = server.network.metrics(platform, published.platformPostId, Date.now()).body as Record<string, number | null>
          for (const metric of ["views", "reach", "likes", "comments", "shares", "saves"] as const) {
            expect(reading.metrics[metric] === null, `${platform} ${metric}`).toBe(raw[metric] === null)
          }
          expect([reading.metrics.clicks, reading.metrics.videoViews], platform).toEqual([null, null])
        }
        const bluesky = account("bluesky")
        const publisher = yield* publisherFor(bluesky)
        const published = yield* publisher.publish(post(bluesky, "short lived"))
        yield* publisher.takedown!(bluesky, published.platformPostId)
        const source = Option.getOrThrow(yield* metricsFor(bluesky))
        expect(yield* source.fetch({ account: bluesky, platformPostId: published.platformPostId })).toMatchObject({
          _tag: "Unreportable",
          reason: "deleted"
        })
      }))

    it.effect("a story has no numbers, ever: unreportable, unsupported", () =>
      Effect.gen(function*() {
        const instagram = account("instagram")
        const sent = request(instagram, null, { media: [media("image")], configuration: { placement: "stories" } })
        const published = yield* Effect.flatMap(publisherFor(instagram), (publisher) => publisher.publish(sent))
        const source = Option.getOrThrow(yield* metricsFor(instagram))
        expect(yield* source.fetch({ account: instagram, platformPostId: published.platformPostId })).toMatchObject({
          _tag: "Unreportable",
          reason: "unsupported"
        })
      }))

    it.effect("an account on a route without a metrics source has none", () =>
      Effect.gen(function*() {
        expect(Option.isNone(yield* metricsFor(account("x", "acme", "direct")))).toBe(true)
      }))
  })

  describe("ConnectionProbe", () => {
    it.effect("a working token: alive, no expiry, every permission granted", () =>
      Effect.gen(function*() {
        const x = account("x")
        const health = yield* Effect.flatMap(probeFor(x), (probe) => Option.getOrThrow(probe).check(x))
        expect(health._tag).toBe("Alive")
        if (health._tag !== "Alive") return
        expect(health.expiresAt).toBeNull()
        expect(health.needed.length).toBeGreaterThan(0)
        expect(missingPermissions(health)).toEqual([])
      }))

    it.effect("a token without the publish permission, and one that expires, say so", () =>
      Effect.gen(function*() {
        const readOnly = account("threads", `${triggerUsernames.readOnlyPrefix}bob`)
        const partial = yield* Effect.flatMap(probeFor(readOnly), (probe) => Option.getOrThrow(probe).check(readOnly))
        expect(partial._tag === "Alive" && missingPermissions(partial)).toEqual(["publish"])
        const expiring = account("linkedin", `${triggerUsernames.expiringPrefix}carol`)
        const before = Date.now()
        const soon = yield* Effect.flatMap(probeFor(expiring), (probe) => Option.getOrThrow(probe).check(expiring))
        expect(soon._tag).toBe("Alive")
        if (soon._tag !== "Alive") return
        expect(soon.expiresAt).not.toBeNull()
        const inMs = DateTime.toEpochMillis(soon.expiresAt!) - before
        expect(inMs).toBeGreaterThan(3_500_000)
        expect(inMs).toBeLessThanOrEqual(3_600_000 + 1_000)
      }))

    it.effect("a token the platform refuses is an answer, not a failure; a route without a probe has none", () =>
      Effect.gen(function*() {
        const expired = account("bluesky", `${triggerUsernames.expiredPrefix}dan`)
        const health = yield* Effect.flatMap(probeFor(expired), (probe) => Option.getOrThrow(probe).check(expired))
        expect(health).toMatchObject({ _tag: "Refused", code: "token_expired" })
        expect(Option.isNone(yield* probeFor(account("bluesky", "acme", "aggregator")))).toBe(true)
      }))
  })
})
