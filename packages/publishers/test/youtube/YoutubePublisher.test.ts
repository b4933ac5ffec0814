import { MetricsReading, type PublishRequest, type SocialAccount } from "@herald/core"
import { DateTime, Effect, Either, Option } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { quotaDay } from "../../src/youtube/Quota.js"
import { chunkUnit } from "../../src/youtube/ResumableUpload.js"
import { youtubeScopes } from "../../src/youtube/YoutubeOAuth.js"
import { hungAfterAnsweredDeadlines } from "../kit/Deadlines.js"
import { makeHarness, makeVideo, markedFrame, videoItem } from "./harness.js"

type Harness = Awaited<ReturnType<typeof makeHarness>>

const video = makeVideo()

const request = (harness: Harness, account: SocialAccount, text: string, options: {
  readonly media?: PublishRequest["media"]
  readonly configuration?: PublishRequest["configuration"]
  readonly marker?: string
} = {}): PublishRequest => ({
  account,
  text,
  media: options.media ?? [harness.withBytes(videoItem(video), video)],
  configuration: options.configuration,
  marker: options.marker ?? randomUUID()
})

describe("the quota day", () => {
  it("is the calendar day in Pacific time, reset at its midnight whatever the machine's zone, across daylight saving", () => {
    const at = (iso: string) => quotaDay(DateTime.unsafeMake(iso))
    // 07:59 UTC in November is 23:59 PST the day before.
    expect(at("2026-11-24T07:59:59Z")).toEqual({ day: "2026-11-23", resetAt: DateTime.unsafeMake("2026-11-24T08:00:00Z") })
    expect(at("2026-11-24T08:00:00Z").day).toBe("2026-11-24")
    // Summer: PDT, midnight is 07:00 UTC.
    expect(at("2026-07-01T07:00:00Z")).toEqual({ day: "2026-07-01", resetAt: DateTime.unsafeMake("2026-07-02T07:00:00Z") })
    // The spring-forward day lasts 23 hours.
    expect(at("2026-03-08T12:00:00Z")).toEqual({ day: "2026-03-08", resetAt: DateTime.unsafeMake("2026-03-09T07:00:00Z") })
  })
})

describe("YouTube's publisher against the fake", () => {
  let harness: Harness
  let account: SocialAccount
  const publish = (req: PublishRequest) => harness.runtime.runPromise(Effect.either(harness.route.adapters.publisher.publish(req)))

  beforeAll(async () => {
    harness = await makeHarness({ quota: { dailyUnits: 1_000_000 }, fake: { dailyQuota: 1_000_000 } })
    account = await harness.connect()
  }, 60_000)
  afterAll(() => harness?.stop())

  it("connects through Google's consent page with offline access, PKCE and the channel as the account", async () => {
    const started = await Effect.runPromise(harness.route.oauth.start({
      state: "s",
      codeChallenge: "c",
      redirectUri: "https://herald.example/oauth/callback/youtube",
      publicUrl: "https://herald.example",
      loginHint: null
    }))
    const consent = new URL(started.authorizeUrl)
    expect(consent.pathname).toBe("/o/oauth2/v2/auth")
    expect(Object.fromEntries(consent.searchParams)).toMatchObject({
      access_type: "offline",
      prompt: "consent",
      code_challenge_method: "S256",
      response_type: "code",
      scope: youtubeScopes.join(" ")
    })
    expect(account).toMatchObject({ platform: "youtube", route: "direct", username: "adalovelace", status: "active" })
    const stored = Option.getOrThrow(harness.data.credentials.get(account.id) === undefined ? Option.none() : Option.some(harness.data.credentials.get(account.id)))
    expect(JSON.stringify(stored)).toContain("refresh_token")
  })

  it("uploads in 256 KiB chunks with every option: the first line as title, the caption as description, the thumbnail, a Short", async () => {
    const text = "Launch day at the workshop\nWe built it in a week.\n#herald"
    const media = [harness.withBytes(videoItem(video, { thumbnailTimestampMs: 400 }), video)]
    const before = harness.fake.uploadRanges.length
    const published = await publish(request(harness, account, text, {
      media,
      configuration: { privacy_status: "unlisted", category_id: "28", has_paid_product_placement: true, contains_synthetic_media: true }
    }))
    const result = Either.getOrThrow(published)
    const held = harness.fake.liveVideos().find((one) => one.id === result.platformPostId)!
    expect(held.metadata).toEqual({
      snippet: { title: "Launch day at the workshop", description: text, categoryId: "28" },
      status: { privacyStatus: "unlisted", containsSyntheticMedia: true },
      paidProductPlacementDetails: { hasPaidProductPlacement: true }
    })
    expect(Buffer.from(held.bytes).equals(Buffer.from(video))).toBe(true)
    expect(Buffer.from(held.thumbnail!).equals(Buffer.from(markedFrame(400)))).toBe(true)
    const ranges = harness.fake.uploadRanges.slice(before)
    expect(ranges.length).toBe(Math.ceil(video.byteLength / chunkUnit))
    expect(ranges[0]).toBe(`bytes 0-${chunkUnit - 1}/${video.byteLength}`)
    expect(result.url).toBe(`https://www.youtube.com/shorts/${result.platformPostId}`)
    expect(result.note).toEqual({ text: expect.stringContaining("Short"), kind: "info" })
  })

  it("a landscape or longer video is a plain video; a frame that cannot be taken leaves the thumbnail behind, said on the receipt", async () => {
    harness.frames.unavailable = true
    const landscape = [harness.withBytes(videoItem(video, { landscape: true, thumbnailTimestampMs: 200 }), video)]
    const result = Either.getOrThrow(await publish(request(harness, account, "Wide shot", { media: landscape })))
    harness.frames.unavailable = false
    expect(result.url).toBe(`https://www.youtube.com/watch?v=${result.platformPostId}`)
    expect(result.note).toEqual({ text: expect.stringContaining("thumbnail at 200 ms was not set (no ffmpeg here)"), kind: null })
    const long = [harness.withBytes(videoItem(video, { seconds: 181 }), video)]
    expect(Either.getOrThrow(await publish(request(harness, account, "Long one", { media: long }))).url).toContain("watch?v=")
  })

  it("a dropped chunk is resumed after probing the session (bytes */N): one upload, one video", async () => {
    const before = { videos: harness.fake.videos.length, ranges: harness.fake.uploadRanges.length, opens: harness.fake.calls.filter((call) => call.startsWith("POST /upload/youtube/v3/videos")).length }
    harness.fake.dropNextChunks(1)
    const result = Either.getOrThrow(await publish(request(harness, account, "Through a bad line")))
    expect(harness.fake.videos.length).toBe(before.videos + 1)
    expect(harness.fake.liveVideos().find((one) => one.id === result.platformPostId)?.bytes.equals(Buffer.from(video))).toBe(true)
    const ranges = harness.fake.uploadRanges.slice(before.ranges)
    expect(ranges[1]).toBe(`bytes */${video.byteLength}`)
    expect(harness.fake.calls.filter((call) => call.startsWith("POST /upload/youtube/v3/videos")).length).toBe(before.opens + 1)
  })

  it("an attempt cut off mid-upload leaves its session recorded; the next attempt resumes on it without a second session or quota", async () => {
    const marker = randomUUID()
    const sent = request(harness, account, "Resumed next time", { marker })
    const opens = () => harness.fake.calls.filter((call) => call.startsWith("POST /upload/youtube/v3/videos")).length
    const before = { opens: opens(), videos: harness.fake.videos.length }
    // More drops than one attempt resumes after: the attempt gives up, transient.
    harness.fake.dropNextChunks(6)
    const first = await publish(sent)
    expect(Either.getLeft(first).pipe(Option.getOrThrow)).toMatchObject({ _tag: "PublishFailed", transient: true })
    expect(harness.data.checkpoints.get(marker)).toContain("session")
    const used = harness.data.quotaUsed.get(`youtube:herald-tests ${quotaDay(DateTime.unsafeNow()).day}`)
    const second = Either.getOrThrow(await publish(sent))
    expect(opens()).toBe(before.opens + 1)
    expect(harness.fake.videos.length).toBe(before.videos + 1)
    expect(harness.data.quotaUsed.get(`youtube:herald-tests ${quotaDay(DateTime.unsafeNow()).day}`)).toBe(used)
    expect(harness.data.checkpoints.has(marker)).toBe(false)
    expect(second.platformPostId).toBe(harness.fake.videos.at(-1)!.id)
  })

  it("a crash after the last chunk (no answer) is OutcomeUnknown; reconcile probes the session and finds the video: never uploaded twice", async () => {
    const sent = request(harness, account, "Answer lost")
    const before = harness.fake.videos.length
    // The session is opened and the first chunks answered before the last one hangs.
    const losing = await harness.routeWithin(hungAfterAnsweredDeadlines)
    harness.fake.hangNext()
    const lost = await harness.runtime.runPromise(Effect.either(losing.adapters.publisher.publish(sent)))
    expect(Either.getLeft(lost).pipe(Option.getOrThrow)._tag).toBe("OutcomeUnknown")
    expect(harness.fake.videos.length).toBe(before + 1)
    const found = await harness.runtime.runPromise(harness.route.adapters.publisher.reconcile!(sent))
    expect(Option.getOrThrow(found).platformPostId).toBe(harness.fake.videos.at(-1)!.id)
    // A publish after it (the dispatcher's, had reconcile not run) answers the same video too.
    expect(harness.fake.videos.length).toBe(before + 1)
    // Nothing recorded: a reconcile answers none and sends nothing.
    expect(Option.isNone(await harness.runtime.runPromise(harness.route.adapters.publisher.reconcile!(request(harness, account, "Never sent"))))).toBe(true)
  })

  it("a video YouTube rejects is media_rejected with its reason", async () => {
    harness.fake.rejectNext("duplicate")
    const failed = Either.getLeft(await publish(request(harness, account, "Seen before"))).pipe(Option.getOrThrow)
    expect(failed).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "duplicate" } })
  })

  it("a title past 100 characters is refused by YouTube as content_rejected (invalidTitle), naming it", async () => {
    const failed = Either.getLeft(await publish(request(harness, account, "x".repeat(101)))).pipe(Option.getOrThrow)
    expect(failed).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "content_rejected", code: "invalidTitle" } })
  })

  it("metrics: views, likes, comments from statistics and shares from Analytics; a deleted video reports nothing; takedown deletes once", async () => {
    const result = Either.getOrThrow(await publish(request(harness, account, "Counted")))
    const held = harness.fake.liveVideos().find((one) => one.id === result.platformPostId)!
    held.statistics = { viewCount: 1200, likeCount: 87, commentCount: 9, shares: 4 }
    const reading = await harness.runtime.runPromise(harness.route.adapters.metrics!.fetch({ account, platformPostId: result.platformPostId }))
    expect(reading).toEqual(MetricsReading.Reported({
      metrics: { views: 1200, reach: null, likes: 87, comments: 9, shares: 4, saves: null, clicks: null, videoViews: null }
    }))
    await harness.runtime.runPromise(harness.route.adapters.publisher.takedown!(account, result.platformPostId))
    expect(harness.fake.liveVideos().some((one) => one.id === result.platformPostId)).toBe(false)
    const again = await harness.runtime.runPromise(Effect.flip(harness.route.adapters.publisher.takedown!(account, result.platformPostId)))
    expect(again._tag).toBe("AlreadyGone")
    const gone = await harness.runtime.runPromise(harness.route.adapters.metrics!.fetch({ account, platformPostId: result.platformPostId }))
    expect(gone._tag).toBe("Unreportable")
  })

  it("the probe finds the channel and the scopes granted", async () => {
    const health = await harness.runtime.runPromise(harness.route.adapters.probe!.check(account))
    expect(health).toMatchObject({ _tag: "Alive", expiresAt: null })
    expect(health._tag === "Alive" && health.granted).toEqual(expect.arrayContaining([...youtubeScopes]))
  })
})

describe("YouTube's quota", () => {
  it("an upload the day cannot afford is refused before any call, rate_limited until midnight Pacific; Google's quotaExceeded marks the day spent", async () => {
    const harness = await makeHarness({ quota: { dailyUnits: 3_300 }, fake: { dailyQuota: 1_700 } })
    try {
      const account = await harness.connect()
      const publish = (text: string) => harness.runtime.runPromise(Effect.either(harness.route.adapters.publisher.publish(request(harness, account, text))))
      expect(Either.isRight(await publish("First of the day"))).toBe(true)
      // Herald's count allows a second upload (3,200 of 3,300), but the project's real quota is gone: Google says quotaExceeded.
      const sentAt = Date.now()
      const exceeded = Either.getLeft(await publish("Second")).pipe(Option.getOrThrow)
      const { day, resetAt } = quotaDay(DateTime.unsafeNow())
      expect(exceeded).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "rate_limited", code: "quotaExceeded" } })
      const untilReset = DateTime.toEpochMillis(resetAt) - sentAt
      expect((exceeded as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(untilReset - 60_000)
      expect((exceeded as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(untilReset)
      expect(harness.data.quotaUsed.get(`youtube:herald-tests ${day}`)).toBe(3_300)
      // Now Herald refuses on its own, before calling Google.
      const calls = harness.fake.calls.length
      const refused = Either.getLeft(await publish("Third")).pipe(Option.getOrThrow)
      expect(refused).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "rate_limited", code: "youtube_quota_exhausted" } })
      expect((refused as { error: { message: string } }).error.message).toContain(`Herald tries again after the reset at ${DateTime.formatIso(resetAt)}`)
      expect(harness.fake.calls.length).toBe(calls)
    } finally {
      await harness.stop()
    }
  }, 60_000)
})
