import { describe, expect, layer } from "@effect/vitest"
import {
  AccountId,
  ConnectionProbes,
  type DeliveryErrorCategory,
  Media,
  MediaId,
  MetricsSources,
  missingPermissions,
  type Platform,
  platforms,
  ProjectId,
  Publishers,
  type PublishRequest,
  SocialAccount
} from "@herald/core"
import { DateTime, Effect, Option, TestServices } from "effect"
import { randomUUID } from "node:crypto"
import { Simulator, SimulatorServer, triggers, triggerUsernames } from "../src/index.js"

const projectId = ProjectId.make(randomUUID())

const account = (platform: Platform, username = `acme_${platform}`, route: SocialAccount["route"] = "simulator") =>
  new SocialAccount({ id: AccountId.make(randomUUID()), projectId, platform, username, route, status: "active" })

const media = (kind: "image" | "video") =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId,
    kind,
    mime: kind === "image" ? "image/jpeg" : "video/mp4",
    bytes: 1000,
    filename: null,
    width: 1080,
    height: 1080,
    durationSeconds: kind === "video" ? 30 : null,
    codec: kind === "image" ? "mjpeg" : "h264",
    altText: null,
    peopleTags: [],
    thumbnailTimestampMs: null,
    storageKey: "k",
    createdAt: DateTime.unsafeMake("2030-01-01T00:00:00Z")
  })

/** A post each platform accepts. */
const request = (target: SocialAccount, text: string | null, attached?: ReadonlyArray<Media>): PublishRequest => ({
  account: target,
  text,
  media: attached ??
    (target.platform === "instagram" || target.platform === "pinterest"
      ? [media("image")]
      : target.platform === "youtube" || target.platform === "tiktok"
      ? [media("video")]
      : []),
  configuration: undefined,
  marker: randomUUID()
})

const publisherFor = (target: SocialAccount) => Effect.map(Publishers, (publishers) => publishers.forAccount(target))
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
          ["401 token_expired", request(x, `hi ${triggers.tokenExpired}`), "auth_expired"],
          ["401 on every call of an expired_ account", request(account("x", `${triggerUsernames.expiredPrefix}amy`), "hi"), "auth_expired"],
          ["403 account_restricted", request(account("x", triggerUsernames.restricted), "hi"), "permission_missing"],
          ["403 missing_permission", request(account("x", `${triggerUsernames.readOnlyPrefix}bob`), "hi"), "permission_missing"],
          ["a route this build does not serve", request(account("x", "acme", "direct"), "hi"), "permission_missing"],
          ["429 rate_limited", request(x, `hi ${triggers.rateLimit}`), "rate_limited"],
          ["422 content_rejected", request(x, `hi ${triggers.reject}`), "content_rejected"],
          ["400 invalid_post", request(x, "a".repeat(281)), "content_rejected"],
          ["400 invalid_media", request(account("instagram"), "words only", []), "media_rejected"],
          ["503 once", request(x, `hi ${triggers.serverError}`), "transient"],
          ["503 always", request(x, `hi ${triggers.down}`), "transient"]
        ]
        for (const [what, sent, category] of cases) expect(yield* refusedAs(sent), what).toBe(category)
      }))

    it.effect("a call answered too late is an unknown outcome; a takedown of a post the platform no longer holds is not_found", () =>
      Effect.gen(function*() {
        const x = account("x")
        const publisher = yield* publisherFor(x)
        const late = yield* publisher.publish(request(x, `slow ${triggers.timeout}`)).pipe(Effect.timeoutOption("150 millis"), TestServices.provideLive)
        expect(Option.isNone(late)).toBe(true)
        const published = yield* publisher.publish(request(x, "to be removed twice"))
        yield* publisher.takedown(x, published.platformPostId)
        const again = yield* Effect.flip(publisher.takedown(x, published.platformPostId))
        expect(again).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "not_found", code: "not_found" } })
      }))
  })

  describe("MetricsSource", () => {
    it.effect("reads every platform's counts, null where the platform reports none, and nothing once the post is gone", () =>
      Effect.gen(function*() {
        for (const platform of platforms) {
          const target = account(platform)
          const published = yield* Effect.flatMap(publisherFor(target), (publisher) => publisher.publish(request(target, "counted")))
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
        const published = yield* publisher.publish(request(bluesky, "short lived"))
        yield* publisher.takedown(bluesky, published.platformPostId)
        const source = Option.getOrThrow(yield* metricsFor(bluesky))
        expect(yield* source.fetch({ account: bluesky, platformPostId: published.platformPostId })).toMatchObject({
          _tag: "Unreportable",
          reason: "deleted"
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
