import { describe, expect, it } from "@effect/vitest"
import { Media, type SocialAccount } from "@herald/core"
import { Cause, Duration, Effect, Exit, Option, TestClock } from "effect"
import { jpeg, makeHarness, mediaItem, mp4, publishRequest as request, withHarness as withPatientHarness } from "./harness.js"
import type { InstagramFakeOptions } from "./InstagramFake.js"
import { driven } from "../kit/Driven.js"
import { patientDeadlines } from "../kit/Deadlines.js"

type Harness = Awaited<ReturnType<typeof makeHarness>>

const withHarness = <A, E>(options: Partial<InstagramFakeOptions>, body: (harness: Harness, account: SocialAccount) => Effect.Effect<A, E>) =>
  withPatientHarness(options, body, patientDeadlines)

const failureOf = <A, E>(exit: Exit.Exit<A, E>) => Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined

const image = (harness: Harness, altText?: string) => harness.withBytes(mediaItem("image", altText === undefined ? {} : { altText }), jpeg)
const video = (harness: Harness) => harness.withBytes(mediaItem("video"), mp4)

describe("Instagram's container flow", () => {
  it.effect("records the container before waiting; the next attempt resumes on it and never creates a second", () =>
    withHarness({ processingReads: 10 }, (harness, account) =>
      Effect.gen(function*() {
        const sent = request(account, "Still processing", [video(harness)])
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

  it.effect("an image container not FINISHED after 10 minutes fails as transient and is forgotten; a video gets 30", () =>
    withHarness({ processingReads: 100_000 }, (harness, account) =>
      Effect.gen(function*() {
        const still = request(account, "Never finishes", [image(harness)])
        yield* driven(harness.route.adapters.publisher.publish(still))
        yield* TestClock.adjust(Duration.minutes(10))
        const late = yield* driven(harness.route.adapters.publisher.publish(still))
        expect(failureOf(late)).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "transient", code: "container_timeout" } })
        expect(harness.data.checkpoints.has(still.marker)).toBe(false)

        const reel = request(account, "A long reel", [video(harness)])
        yield* driven(harness.route.adapters.publisher.publish(reel))
        yield* TestClock.adjust(Duration.minutes(11))
        expect(failureOf(yield* driven(harness.route.adapters.publisher.publish(reel)))).toMatchObject({ error: { code: "container_processing" } })
        yield* TestClock.adjust(Duration.minutes(20))
        expect(failureOf(yield* driven(harness.route.adapters.publisher.publish(reel)))).toMatchObject({ error: { code: "container_timeout" } })
        expect(harness.fake.containers.size).toBe(2)
        expect(harness.fake.livePosts()).toHaveLength(0)
      })))

  it.effect("a container in ERROR is the media's refusal with Meta's subcode", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const empty = harness.withBytes(mediaItem("video"), new Uint8Array(0))
        const exit = yield* driven(harness.route.adapters.publisher.publish(request(account, "Broken video", [empty])))
        expect(failureOf(exit)).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "2207026" } })
      })))

  it.effect("an image Instagram cannot fetch, or one that is not a JPEG, is refused at create with Meta's subcode", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const empty = harness.withBytes(mediaItem("image"), new Uint8Array(0))
        const unfetched = failureOf(yield* driven(harness.route.adapters.publisher.publish(request(account, "Broken image", [empty])))) as {
          error: { category: string; code: string; message: string }
        }
        expect(unfetched.error).toMatchObject({ category: "media_rejected", code: "9004/2207052" })
        expect(unfetched.error.message).toMatch(/could not be fetched.*fbtrace_id A/)
        const png = harness.withBytes(mediaItem("image"), new Uint8Array([137, 80, 78, 71]))
        const refused = failureOf(yield* driven(harness.route.adapters.publisher.publish(request(account, "A PNG", [png]))))
        expect(refused).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "36001/2207005" } })
      })))

  it.effect("media storage without public URLs is media_rejected before any container", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const unstored = mediaItem("image")
        const failure = yield* Effect.flip(harness.route.adapters.publisher.publish(request(account, "Nowhere to fetch", [unstored])))
        expect(failure).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "media_url_unavailable" } })
        expect(harness.fake.containers.size).toBe(0)
      })))
})

describe("Instagram's kinds of post", () => {
  it.effect("a feed image carries its caption, alt text and the options; the receipt is its permalink", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(
          request(account, "A kite", [image(harness, "a red kite over a hill")], { is_ai_generated: true, collaborators: ["ada.lovelace"] })
        )
        const [post] = harness.fake.livePosts()
        expect(post?.product).toBe("FEED")
        expect(post?.container.fields).toMatchObject({
          caption: "A kite",
          alt_text: "a red kite over a hill",
          is_ai_generated: "true",
          collaborators: JSON.stringify(["ada.lovelace"])
        })
        expect(post?.container.fields["media_type"]).toBeUndefined()
        expect(published).toMatchObject({ platformPostId: post?.id, url: `https://www.instagram.com/p/${post?.shortcode}/` })
      })))

  it.effect("a single video is a reel: shown in the feed unless placed in reels, its cover frame from thumbnail_timestamp_ms, its cover_url", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const withFrame = harness.withBytes(new Media({ ...mediaItem("video"), thumbnailTimestampMs: 1500 }), mp4)
        const cover = harness.publicUrlOf(image(harness))
        const feed = yield* harness.route.adapters.publisher.publish(request(account, "A reel in the feed", [withFrame], { cover_url: cover }))
        expect(feed.url).toMatch(/^https:\/\/www\.instagram\.com\/reel\/[A-Za-z0-9_-]{11}\/$/)
        const reelsOnly = yield* harness.route.adapters.publisher.publish(request(account, "Reels tab only", [video(harness)], { placement: "reels" }))
        const [first, second] = harness.fake.livePosts()
        expect(first?.product).toBe("REELS")
        expect(first?.container.fields).toMatchObject({ media_type: "REELS", share_to_feed: "true", thumb_offset: "1500", cover_url: cover, caption: "A reel in the feed" })
        expect(second?.container.fields).toMatchObject({ media_type: "REELS", share_to_feed: "false" })
        expect(reelsOnly.platformPostId).toBe(second?.id)
      })))

  it.effect("a reel placed with other media is its first video alone (the receipt's note names what was left)", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const clip = video(harness)
        yield* harness.route.adapters.publisher.publish(request(account, "Just the clip", [image(harness), clip, image(harness)], { placement: "reels" }))
        const [post] = harness.fake.livePosts()
        expect(post).toMatchObject({ product: "REELS", children: [] })
        expect(post?.container.fields["video_url"]).toBe(harness.publicUrlOf(clip))
      })))

  it.effect("a story carries its media and no caption", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, null, [image(harness)], { placement: "stories" }))
        const [post] = harness.fake.livePosts()
        expect(post?.product).toBe("STORY")
        expect(post?.container.fields["media_type"]).toBe("STORIES")
        expect(post?.container.fields["caption"]).toBeUndefined()
        expect(published.url).toBe(`https://www.instagram.com/stories/grace.hopper/${post?.id}/`)
      })))

  it.effect("a mixed carousel's items are containers of their own, FINISHED before the carousel's, options on the parent only", () =>
    withHarness({ processingReads: 2 }, (harness, account) =>
      Effect.gen(function*() {
        const items = [image(harness, "first"), video(harness), image(harness)]
        const exit = yield* driven(harness.route.adapters.publisher.publish(request(account, "Three things", items, { is_ai_generated: true })))
        expect(Exit.isSuccess(exit)).toBe(true)
        const [post] = harness.fake.livePosts()
        expect(post?.children.map((child) => child.fields["media_type"] ?? "IMAGE")).toEqual(["IMAGE", "VIDEO", "IMAGE"])
        expect(post?.children[0]?.fields["alt_text"]).toBe("first")
        expect(post?.children.every((child) => child.fields["is_ai_generated"] === undefined && child.fields["caption"] === undefined)).toBe(true)
        expect(post?.container.fields).toMatchObject({ media_type: "CAROUSEL", caption: "Three things", is_ai_generated: "true" })
      })))

  it.effect("branded content is refused through Instagram Login, naming the account, before any container", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const failure = yield* Effect.flip(harness.route.adapters.publisher.publish(request(account, "Sponsored", [image(harness)], { is_paid_partnership: true })))
        expect(failure).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "permission_missing", code: "branded_content_unavailable" } })
        expect((failure as { error: { message: string } }).error.message).toContain("instagram:grace.hopper")
        expect(harness.fake.containers.size).toBe(0)
      })))
})

describe("Instagram Login's limits, tokens, metrics, probe and takedown", () => {
  it.live("the publishing limit is rate_limited until the oldest post of the 24 hours ages out, before any container is made", () =>
    withHarness({ quota: 1 }, (harness, account) =>
      Effect.gen(function*() {
        yield* harness.route.adapters.publisher.publish(request(account, "The one allowed", [image(harness)]))
        harness.fake.age(harness.fake.livePosts()[0]!.id, Duration.toMillis(Duration.hours(20)))
        const failure = yield* Effect.flip(harness.route.adapters.publisher.publish(request(account, "One too many", [image(harness)])))
        expect(failure).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "rate_limited", code: "content_publishing_limit" } })
        const wait = (failure as { retryAfterMs: number }).retryAfterMs
        expect(wait).toBeGreaterThan(Duration.toMillis(Duration.hours(4)) - 60_000)
        expect(wait).toBeLessThanOrEqual(Duration.toMillis(Duration.hours(4)))
        expect(harness.fake.containers.size).toBe(1)
      })))

  it.effect("Instagram's own refusal of a publish over the limit (9/2207042) is rate_limited too", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        harness.fake.failNext({ status: 200, body: { data: [{ quota_usage: 0, config: { quota_total: 100, quota_duration: 86400 } }] } })
        const sent = request(account, "Raced", [image(harness)])
        // The quota read answered room (a post raced it), then media_publish is refused.
        harness.fake.setQuota(0)
        const failure = yield* Effect.flip(harness.route.adapters.publisher.publish(sent))
        expect(failure).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "rate_limited", code: "9/2207042" } })
      })))

  it.effect("connecting stores the long-lived token (60 days), never the one-hour one; a refresh uses ig_refresh_token", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        expect(harness.fake.tokenCalls).toEqual(["authorization_code", "ig_exchange_token"])
        const stored = harness.data.credentials.get(account.id) as { access_token: string; expires_at: string; user_id: string; username: string }
        expect(stored.access_token.startsWith("IGL")).toBe(true)
        expect(stored).toMatchObject({ user_id: harness.fake.user.id, username: "grace.hopper" })
        expect(Date.parse(stored.expires_at)).toBeGreaterThan(Date.now() + 59 * 24 * 3600 * 1000)
        harness.fake.expireToken()
        yield* harness.route.adapters.publisher.publish(request(account, "After a refresh", [image(harness)]))
        expect(harness.fake.tokenCalls).toEqual(["authorization_code", "ig_exchange_token", "ig_refresh_token"])
      })))

  it.live("insights map onto Herald's names (saved is saves); a story reports nothing once expired", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Counted", [image(harness)]))
        harness.fake.insights.set(published.platformPostId, { reach: 80, views: 120, likes: 9, comments: 4, shares: 2, saved: 3 })
        expect(yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId })).toMatchObject({
          _tag: "Reported",
          metrics: { reach: 80, views: 120, likes: 9, comments: 4, shares: 2, saves: 3, clicks: null, videoViews: null }
        })
        const story = yield* harness.route.adapters.publisher.publish(request(account, null, [image(harness)], { placement: "stories" }))
        harness.fake.insights.set(story.platformPostId, { reach: 30, views: 40, shares: 1 })
        expect(yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: story.platformPostId })).toMatchObject({
          _tag: "Reported",
          metrics: { reach: 30, views: 40, shares: 1, likes: null, comments: null, saves: null }
        })
        harness.fake.age(story.platformPostId, Duration.toMillis(Duration.hours(25)))
        expect(yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: story.platformPostId })).toMatchObject({ _tag: "Unreportable", reason: "expired" })
        harness.fake.revokeScope("instagram_business_manage_insights")
        expect(yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId })).toMatchObject({
          _tag: "Unreportable",
          reason: "unsupported"
        })
      })))

  it.effect("Instagram Login has no takedown (Instagram deletes only through Facebook Login)", () =>
    withHarness({}, (harness) =>
      Effect.sync(() => {
        expect(harness.route.adapters.publisher.takedown).toBeUndefined()
      })))

  it.effect("the probe says what is granted: without instagram_business_content_publish, publishing is missing", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const both = ["instagram_business_basic", "instagram_business_content_publish"]
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Alive", granted: both, needed: both })
        harness.fake.revokeScope("instagram_business_content_publish")
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Alive", granted: ["instagram_business_basic"] })
        harness.fake.revokeGrant()
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Refused" })
      })))
})
