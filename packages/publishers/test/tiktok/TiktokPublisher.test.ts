import { type PublishRequest, type SocialAccount } from "@herald/core"
import { Effect, Exit, Option, TestContext } from "effect"
import { randomUUID } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { chunkPlan, chunkRange } from "../../src/tiktok/TiktokPosts.js"
import { hungCallDeadlines, shortDeadlines } from "../kit/Deadlines.js"
import { driven } from "../kit/Driven.js"
import { makeHarness, type HarnessOptions, mediaItem, videoBytes } from "./harness.js"

type Harness = Awaited<ReturnType<typeof makeHarness>>

const opened: Array<Harness> = []
afterEach(async () => {
  for (const harness of opened.splice(0)) await harness.stop()
})

const start = async (options: HarnessOptions = {}) => {
  const harness = await makeHarness(options)
  opened.push(harness)
  const account = await harness.connect()
  const video = (fields: Parameters<typeof mediaItem>[1] = {}) => harness.withBytes(mediaItem("video", fields), videoBytes())
  const photo = () => harness.withBytes(mediaItem("image"), new Uint8Array([255, 216, 255, 224, 1, 2, 3]))
  const run = <A, E>(effect: Effect.Effect<A, E>) => harness.runtime.runPromise(Effect.exit(effect))
  /** As `run`, with the status polls' and chunk retries' pauses on a TestClock moved on as soon as the publish sleeps. */
  const drive = <A, E>(effect: Effect.Effect<A, E>, cut?: () => boolean) =>
    harness.runtime.runPromise(driven(effect, cut).pipe(Effect.provide(TestContext.TestContext)))
  return { harness, account, video, photo, run, drive, publisher: harness.route.adapters.publisher }
}

const request = (account: SocialAccount, text: string, extra: Partial<PublishRequest> = {}): PublishRequest => ({
  account,
  text,
  media: [],
  configuration: undefined,
  marker: randomUUID(),
  ...extra
})

const failure = <A, E>(exit: Exit.Exit<A, E>) => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  return Option.getOrThrow(Exit.causeOption(exit).pipe(Option.flatMap((cause) => Option.fromNullable(cause._tag === "Fail" ? cause.error : undefined))))
}

describe("TikTok's chunk plan (Media Transfer Guide)", () => {
  it("sends a file up to 64,000,000 bytes as one chunk of its size, a larger one in 10 MB chunks with the remainder in the last", () => {
    expect(chunkPlan(3_000)).toEqual({ video_size: 3_000, chunk_size: 3_000, total_chunk_count: 1 })
    expect(chunkPlan(64_000_000)).toEqual({ video_size: 64_000_000, chunk_size: 64_000_000, total_chunk_count: 1 })
    const large = chunkPlan(64_000_001)
    expect(large).toEqual({ video_size: 64_000_001, chunk_size: 10_000_000, total_chunk_count: 6 })
    expect(chunkRange(large, 0)).toEqual({ first: 0, last: 9_999_999 })
    expect(chunkRange(large, 5)).toEqual({ first: 50_000_000, last: 64_000_000 })
  })
})

describe("TikTok's publisher against the fake", () => {
  it("waits while TikTok processes, then answers the public post's URL with its 19-digit id intact", async () => {
    const { account, drive, harness, publisher, video } = await start({ fake: { processingReads: 3 } })
    const exit = await drive(publisher.publish(request(account, "Processed", { media: [video({ thumbnailTimestampMs: 1200 })], configuration: { privacy_status: "PUBLIC_TO_EVERYONE" } })))
    expect(Exit.isSuccess(exit)).toBe(true)
    const published = Exit.isSuccess(exit) ? exit.value : undefined
    const [sent] = harness.fake.livePosts()
    expect(published).toEqual({ platformPostId: sent!.postId, url: `https://www.tiktok.com/@ada.lovelace/video/${sent!.postId}`, note: null })
    expect(sent!.postInfo["video_cover_timestamp_ms"]).toBe(1200)
    expect(harness.fake.calls.filter((call) => call.startsWith("POST /v2/post/publish/status/fetch/")).length).toBe(4)
    expect(harness.data.checkpoints.size).toBe(0)
  })

  it("an attempt cut short while waiting resumes on the recorded publish_id: one init, one post", async () => {
    const { account, drive, harness, publisher, video } = await start({ fake: { processingReads: 1_000_000 } })
    const sent = request(account, "Cut short", { media: [video()], configuration: { privacy_status: "SELF_ONLY" } })
    // Cut short once it waits on TikTok's processing: its first status read made.
    const cut = await drive(publisher.publish(sent), () => harness.fake.calls.some((call) => call.startsWith("POST /v2/post/publish/status/fetch/")))
    expect(Exit.isFailure(cut)).toBe(true)
    expect(JSON.parse(harness.data.checkpoints.get(sent.marker)!)).toMatchObject({ _tag: "publishing", publishId: harness.fake.publishes[0]!.publishId, upload: { uploaded: true } })
    harness.fake.publishes[0]!.reads = 1_000_000
    const resumed = await drive(publisher.publish(sent))
    expect(Exit.isSuccess(resumed)).toBe(true)
    expect(harness.fake.publishes).toHaveLength(1)
    expect(harness.fake.calls.filter((call) => call.includes("/init/"))).toHaveLength(1)
  })

  it("a chunk TikTok keeps failing is transient with the publish kept; the next attempt finishes the upload on it", async () => {
    const { account, drive, harness, publisher, video } = await start()
    const sent = request(account, "Chunk trouble", { media: [video()], configuration: { privacy_status: "SELF_ONLY" } })
    harness.fake.failChunks = { count: 3, status: 503 }
    const first = failure(await drive(publisher.publish(sent)))
    expect(first).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "transient", code: "http_503" } })
    expect(JSON.parse(harness.data.checkpoints.get(sent.marker)!)).toMatchObject({ _tag: "publishing", upload: { uploaded: false } })
    const second = await drive(publisher.publish(sent))
    expect(Exit.isSuccess(second)).toBe(true)
    expect(harness.fake.publishes).toHaveLength(1)
    expect(Buffer.compare(harness.fake.publishes[0]!.media[0]!, Buffer.from(videoBytes()))).toBe(0)
  })

  it("a chunk retried after a passing 5xx goes through in the same attempt", async () => {
    const { account, drive, harness, publisher, video } = await start()
    harness.fake.failChunks = { count: 1, status: 502 }
    expect(Exit.isSuccess(await drive(publisher.publish(request(account, "One 502", { media: [video()], configuration: { privacy_status: "SELF_ONLY" } }))))).toBe(true)
  })

  it("an init whose answer is lost is found among the public videos by its text; a private one stays unknown", async () => {
    const { account, harness, publisher, run, video } = await start()
    // The lost inits' publishes: creator_info (a read) is answered, the init (the one publish call) never is.
    const losing = (await harness.routeWithin({ ...shortDeadlines, publish: hungCallDeadlines.publish })).adapters.publisher
    harness.fake.hangNextInit = true
    const sent = request(account, `Lost answer ${randomUUID().slice(0, 8)}`, { media: [video()], configuration: { privacy_status: "PUBLIC_TO_EVERYONE" } })
    expect(failure(await run(losing.publish(sent)))).toMatchObject({ _tag: "OutcomeUnknown" })
    // TikTok finishes the publish it was given (its status read by nobody).
    const publish = harness.fake.publishes[0]!
    await fetch(`${harness.fake.url}/upload/${encodeURIComponent(publish.publishId)}`, {
      method: "PUT",
      headers: { "content-type": "video/mp4", "content-range": `bytes 0-${videoBytes().length - 1}/${videoBytes().length}` },
      body: Buffer.from(videoBytes())
    })
    publish.status = "PUBLISH_COMPLETE"
    publish.postId = "7312345678901234567"
    const found = await run(publisher.reconcile!(sent))
    expect(Exit.isSuccess(found) && Option.getOrNull(found.value)).toMatchObject({ platformPostId: "7312345678901234567" })
    expect(harness.data.checkpoints.size).toBe(0)

    harness.fake.hangNextInit = true
    const hidden = request(account, "Private and lost", { media: [video()], configuration: { privacy_status: "SELF_ONLY" } })
    expect(failure(await run(losing.publish(hidden)))).toMatchObject({ _tag: "OutcomeUnknown" })
    expect(failure(await run(publisher.reconcile!(hidden)))).toMatchObject({ _tag: "OutcomeUnknown" })
    // Nothing recorded for a delivery: nothing was sent, and reconcile says so.
    expect(Exit.isSuccess(await run(publisher.reconcile!(request(account, "Never sent"))))).toBe(true)
  })

  it("maps a FAILED publish's fail_reason onto the taxonomy and forgets the publish", async () => {
    const { account, drive, harness, publisher, video } = await start()
    // auth_removed: the creator removed the app mid-publish; not refreshed and posted again, but auth_expired (reconnect).
    for (const [reason, category, transient] of [["duration_check_failed", "media_rejected", false], ["spam_risk_text", "content_rejected", false], ["internal", "transient", true], ["auth_removed", "auth_expired", false]] as const) {
      harness.fake.failNextPublish = reason
      const sent = request(account, `Fails with ${reason}`, { media: [video()], configuration: { privacy_status: "SELF_ONLY" } })
      expect(failure(await drive(publisher.publish(sent)))).toMatchObject({ _tag: "PublishFailed", transient, error: { category, code: reason } })
      expect(harness.data.checkpoints.has(sent.marker)).toBe(false)
    }
    expect(harness.fake.publishes).toHaveLength(4)
  })

  it("creator_info's refusals come before any init: a banned creator, a capped app", async () => {
    const { account, harness, publisher, run, video } = await start()
    harness.fake.creator.refusal = "spam_risk_user_banned_from_posting"
    expect(failure(await run(publisher.publish(request(account, "Banned", { media: [video()], configuration: { privacy_status: "SELF_ONLY" } })))))
      .toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "permission_missing", code: "spam_risk_user_banned_from_posting" } })
    harness.fake.creator.refusal = "reached_active_user_cap"
    expect(failure(await run(publisher.publish(request(account, "Capped", { media: [video()], configuration: { privacy_status: "SELF_ONLY" } })))))
      .toMatchObject({ _tag: "PublishFailed", transient: true, retryAfterMs: 3_600_000, error: { category: "rate_limited" } })
    harness.fake.creator.refusal = null
    harness.fake.creator.maxVideoPostDurationSec = 3
    expect(failure(await run(publisher.publish(request(account, "Too long", { media: [video({ durationSeconds: 4 })], configuration: { privacy_status: "SELF_ONLY" } })))))
      .toMatchObject({ error: { category: "media_rejected", code: "duration_over_creator_limit" } })
    expect(failure(await run(publisher.publish(request(account, "Not offered", { media: [video()], configuration: { privacy_status: "FOLLOWER_OF_CREATOR" } })))))
      .toMatchObject({ error: { category: "content_rejected", code: "privacy_level_option_mismatch" } })
    expect(harness.fake.calls.filter((call) => call.includes("/init/"))).toEqual([])
  })

  it("an unaudited app posts SELF_ONLY and is refused a public audience before TikTok is asked", async () => {
    const { account, harness, publisher, run, video } = await start({ settings: { audited: false } })
    expect(account.report).toMatchObject({ public_posts: false, options: { privacy_status: { values: ["SELF_ONLY"] } } })
    expect(failure(await run(publisher.publish(request(account, "Public", { media: [video()], configuration: { privacy_status: "PUBLIC_TO_EVERYONE" } })))))
      .toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "permission_missing", code: "app_unaudited" } })
    expect(harness.fake.calls.filter((call) => call.includes("/init/"))).toEqual([])
    const exit = await run(publisher.publish(request(account, "Private", { media: [video()] })))
    expect(Exit.isSuccess(exit) && exit.value).toMatchObject({ url: "https://www.tiktok.com/@ada.lovelace", note: { kind: "info" } })
    expect(harness.fake.publishes[0]!.postInfo["privacy_level"]).toBe("SELF_ONLY")
  })

  it("pulls a video from the media URL when set to, and says so when TikTok has not verified the URL's prefix", async () => {
    const { account, harness, publisher, run, video } = await start({ settings: { videoTransfer: "pull_from_url" } })
    expect(Exit.isSuccess(await run(publisher.publish(request(account, "Pulled", { media: [video()], configuration: { privacy_status: "SELF_ONLY" } }))))).toBe(true)
    expect(harness.fake.publishes[0]!.sourceInfo).toMatchObject({ source: "PULL_FROM_URL", video_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/media\//) })
    expect(harness.fake.publishes[0]!.media[0]!.length).toBe(videoBytes().length)

    const unverified = await start({ settings: { videoTransfer: "pull_from_url" }, fake: { verifiedUrlPrefixes: [] } })
    expect(failure(await unverified.run(unverified.publisher.publish(request(unverified.account, "Unverified", { media: [unverified.video()], configuration: { privacy_status: "SELF_ONLY" } })))))
      .toMatchObject({ error: { category: "media_rejected", code: "url_ownership_unverified" } })
  })

  it("sends photos by URL with the caption as description and its first line as title, without the video-only fields", async () => {
    const { account, harness, photo, publisher, run } = await start()
    const text = `${"A long first line ".repeat(6)}\nand a second line`
    expect(Exit.isSuccess(await run(publisher.publish(request(account, text, { media: [photo(), photo(), photo()], configuration: { privacy_status: "SELF_ONLY", disable_comment: true } }))))).toBe(true)
    const [sent] = harness.fake.publishes
    expect(sent!.kind).toBe("photo")
    expect(sent!.media).toHaveLength(3)
    expect(sent!.postInfo).toMatchObject({ description: text, disable_comment: true, auto_add_music: true })
    expect((sent!.postInfo["title"] as string).length).toBe(90)
    expect((sent!.postInfo["title"] as string).endsWith("…")).toBe(true)
  })

  it("metrics come from the video query for a public post; a private post's publish_id is unsupported", async () => {
    const { account, harness, publisher, run, video } = await start()
    const metrics = harness.route.adapters.metrics!
    const open = await run(publisher.publish(request(account, "Counted", { media: [video()], configuration: { privacy_status: "PUBLIC_TO_EVERYONE" } })))
    const postId = Exit.isSuccess(open) ? open.value.platformPostId : ""
    harness.fake.counts.set(postId, { view_count: 10, like_count: 4, comment_count: 2, share_count: 1 })
    const reading = await run(metrics.fetch({ account, platformPostId: postId }))
    expect(Exit.isSuccess(reading) && reading.value).toMatchObject({
      _tag: "Reported",
      metrics: { views: 10, likes: 4, comments: 2, shares: 1, reach: null, saves: null, clicks: null }
    })
    const closed = await run(publisher.publish(request(account, "Private", { media: [video()], configuration: { privacy_status: "SELF_ONLY" } })))
    const publishId = Exit.isSuccess(closed) ? closed.value.platformPostId : ""
    expect(publishId).toMatch(/^v_pub_file~/)
    expect(Exit.isSuccess(await run(metrics.fetch({ account, platformPostId: publishId })))).toBe(true)
    const unreportable = await run(metrics.fetch({ account, platformPostId: publishId }))
    expect(Exit.isSuccess(unreportable) && unreportable.value).toMatchObject({ _tag: "Unreportable", reason: "unsupported" })
    const gone = await run(metrics.fetch({ account, platformPostId: "7000000000000000001" }))
    expect(Exit.isSuccess(gone) && gone.value).toMatchObject({ _tag: "Unreportable", reason: "deleted" })
  })

  it("the probe answers the creator's report now, and a refused grant as Refused", async () => {
    const { account, harness, run } = await start()
    const probe = harness.route.adapters.probe!
    harness.fake.creator.maxVideoPostDurationSec = 90
    harness.fake.creator.duetDisabled = true
    const alive = await run(probe.check(account))
    expect(Exit.isSuccess(alive) && alive.value).toMatchObject({
      _tag: "Alive",
      needed: ["user.info.basic", "video.publish", "video.list"],
      report: { video_seconds: 90, public_posts: true, options: { disable_duet: { fixed: true } } }
    })
    harness.fake.revokeGrant()
    const refused = await run(probe.check(account))
    expect(Exit.isSuccess(refused) && refused.value).toMatchObject({ _tag: "Refused" })
  })

  it("has no takedown: TikTok's API deletes nothing", async () => {
    const { publisher } = await start()
    expect(publisher.takedown).toBeUndefined()
  })
})
