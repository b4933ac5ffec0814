import { describe, expect, it } from "@effect/vitest"
import type { SocialAccount } from "@herald/core"
import { Duration, Effect, Exit } from "effect"
import { graphVersions } from "../../src/meta/GraphVersions.js"
import { jpeg, makeHarness, mediaItem, mp4, publishRequest as request, withHarness as withLoginHarness } from "./harness.js"
import type { InstagramFakeOptions } from "./InstagramFake.js"

/**
 * Instagram through Facebook Login for Business: accounts connected through Herald's connection
 * flow on the fake's Facebook dialog (one per Instagram account linked to a Page the user may
 * publish with), and the container calls on graph.facebook.com with the Page's token, with what
 * this login adds (branded content, deletes).
 */
type Harness = Awaited<ReturnType<typeof makeHarness>>

const brands = { "acme.brand": "17841400000000099" }

const withHarness = <A, E>(options: Partial<InstagramFakeOptions>, body: (harness: Harness, account: SocialAccount) => Effect.Effect<A, E>) =>
  withLoginHarness({ login: "facebook", brands, ...options }, body)

const image = (harness: Harness, altText?: string) => harness.withBytes(mediaItem("image", altText === undefined ? {} : { altText }), jpeg)
const video = (harness: Harness) => harness.withBytes(mediaItem("video"), mp4)

const otherPages = [
  // A Page without an Instagram account: no Herald account.
  { id: "104000000000078", name: "Plain Page", tasks: ["CREATE_CONTENT", "MANAGE"] },
  // A Page whose Instagram account the user may only read: no Herald account.
  { id: "104000000000079", name: "Watched Page", tasks: ["ANALYZE"], instagram: { id: "17841400000000055", username: "someone.else" } }
]

describe("Instagram's Facebook Login route: connection", () => {
  it.effect("one account per Instagram account linked to a Page the user may publish with, posting with the Page's token", () =>
    withHarness({ otherPages }, (harness, account) =>
      Effect.sync(() => {
        expect(account).toMatchObject({ platform: "instagram", route: "facebook_login", username: "grace.hopper", status: "active" })
        expect([...harness.data.accounts.values()].map((one) => one.username)).toEqual(["grace.hopper"])
        expect(harness.fake.facebook?.tokenCalls).toEqual(["code", "fb_exchange_token"])
        const dialog = harness.fake.facebook?.dialogs[0]
        expect(dialog?.get("scope")?.split(",")).toEqual(expect.arrayContaining(["instagram_basic", "instagram_content_publish", "instagram_manage_contents", "pages_show_list"]))
        const stored = harness.data.credentials.get(account.id) as Record<string, string>
        expect(stored).toMatchObject({ user_id: harness.fake.user.id, username: "grace.hopper", page_id: "104000000000077" })
        expect(harness.fake.facebook?.pageToken(stored["access_token"])?.pageId).toBe("104000000000077")
        expect(harness.fake.facebook?.userToken(stored["user_token"])?.kind).toBe("long")
        // A Page token obtained with a long-lived user token does not expire.
        expect(stored["expires_at"]).toBeUndefined()
      })))

  it.effect("a listing without the linked account's username reads it from Instagram", () =>
    withHarness({ listsUsername: false }, (harness, account) =>
      Effect.sync(() => {
        expect(account.username).toBe("grace.hopper")
        expect(harness.fake.calls.some((call) => call.startsWith(`GET /${graphVersions.facebook}/${harness.fake.user.id}?fields=id,username`))).toBe(true)
      })))

  it.effect("a user whose Pages have no Instagram account to publish to connects nothing, and is told why", () =>
    Effect.scoped(Effect.gen(function*() {
      const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness({ login: "facebook" })), (opened) => Effect.promise(() => opened.stop()))
      harness.fake.facebook!.pages = [otherPages[0]!, otherPages[1]!]
      const failure = yield* Effect.flip(Effect.promise(() => harness.connect().then(() => null, (error: unknown) => error)).pipe(Effect.flatMap(Effect.fail)))
      expect(String(failure)).toMatch(/no_instagram_accounts.*link the Instagram account to a Page/)
      expect(harness.data.accounts.size).toBe(0)
    })))
})

describe("Instagram's Facebook Login route: publishing on graph.facebook.com", () => {
  it.effect("an image, a reel, a story and a carousel go out through the container calls, each with its receipt", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const publisher = harness.route.adapters.publisher
        const feed = yield* publisher.publish(request(account, "A kite", [image(harness, "a red kite")]))
        const reel = yield* publisher.publish(request(account, "A reel", [video(harness)], { placement: "reels" }))
        const story = yield* publisher.publish(request(account, null, [video(harness)], { placement: "stories" }))
        const carousel = yield* publisher.publish(request(account, "Two things", [image(harness), video(harness)]))
        const posts = harness.fake.livePosts()
        expect(posts.map((post) => post.product)).toEqual(["FEED", "REELS", "STORY", "FEED"])
        expect(posts[0]?.container.fields).toMatchObject({ caption: "A kite", alt_text: "a red kite" })
        expect(posts[1]?.container.fields).toMatchObject({ media_type: "REELS", share_to_feed: "false" })
        expect(posts[3]?.children).toHaveLength(2)
        expect(feed.url).toBe(`https://www.instagram.com/p/${posts[0]?.shortcode}/`)
        expect(reel.url).toBe(`https://www.instagram.com/reel/${posts[1]?.shortcode}/`)
        expect(story.url).toBe(`https://www.instagram.com/stories/grace.hopper/${posts[2]?.id}/`)
        expect(carousel.platformPostId).toBe(posts[3]?.id)
        const user = harness.fake.user.id
        expect(harness.fake.calls).toEqual(expect.arrayContaining([
          `POST /${graphVersions.facebook}/${user}/media`,
          `POST /${graphVersions.facebook}/${user}/media_publish`
        ]))
      })))

  it.effect("branded content goes through: the sponsors' ids from Business Discovery, the label on the post", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        yield* harness.route.adapters.publisher.publish(
          request(account, "Sponsored", [image(harness)], { is_paid_partnership: true, branded_content_sponsors: ["@acme.brand"] })
        )
        expect(harness.fake.livePosts()[0]?.container.fields).toMatchObject({
          is_paid_partnership: "true",
          branded_content_sponsor_ids: JSON.stringify(["17841400000000099"])
        })
      })))

  it.effect("failures keep their category: a refused image is media_rejected, a 5xx transient, the publishing limit rate_limited with its reset", () =>
    withHarness({ quota: 1 }, (harness, account) =>
      Effect.gen(function*() {
        const publisher = harness.route.adapters.publisher
        const png = harness.withBytes(mediaItem("image"), new Uint8Array([137, 80, 78, 71]))
        expect(yield* Effect.flip(publisher.publish(request(account, "A PNG", [png])))).toMatchObject({
          _tag: "PublishFailed",
          transient: false,
          error: { category: "media_rejected", code: "36001/2207005" }
        })
        harness.fake.failNext({ status: 503 })
        expect(yield* Effect.flip(publisher.publish(request(account, "Busy", [image(harness)])))).toMatchObject({ transient: true, error: { category: "transient" } })
        yield* publisher.publish(request(account, "The one allowed", [image(harness)]))
        const limited = yield* Effect.flip(publisher.publish(request(account, "One too many", [image(harness)])))
        expect(limited).toMatchObject({ transient: true, error: { category: "rate_limited", code: "content_publishing_limit" } })
        expect((limited as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(Duration.toMillis(Duration.hours(23)))
      })))

  it.effect("a Page token Facebook stops taking is asked for again with the user token, and the post goes out", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const before = (harness.data.credentials.get(account.id) as Record<string, string>)["access_token"]
        harness.fake.expireToken()
        yield* harness.route.adapters.publisher.publish(request(account, "After a new Page token", [image(harness)]))
        expect(harness.fake.facebook?.tokenCalls.filter((call) => call === "page_token")).toHaveLength(1)
        const after = harness.data.credentials.get(account.id) as Record<string, string>
        expect(after["access_token"]).not.toBe(before)
        expect(after).toMatchObject({ user_id: harness.fake.user.id, page_id: "104000000000077" })
      })))
})

describe("Instagram's Facebook Login route: takedown, metrics, probe", () => {
  it.effect("a takedown deletes the post; one already gone is AlreadyGone", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const publisher = harness.route.adapters.publisher
        const takedown = publisher.takedown!
        const published = yield* publisher.publish(request(account, "Goes away", [image(harness)]))
        expect(Exit.isSuccess(yield* Effect.exit(takedown(account, published.platformPostId)))).toBe(true)
        expect(harness.fake.livePosts()).toHaveLength(0)
        expect(harness.fake.calls).toContain(`DELETE /${graphVersions.facebook}/${published.platformPostId}`)
        expect(yield* Effect.flip(takedown(account, published.platformPostId))).toMatchObject({ _tag: "AlreadyGone" })
      })))

  it.live("insights are read with instagram_manage_insights; without it metrics are unsupported", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Counted", [image(harness)]))
        harness.fake.insights.set(published.platformPostId, { reach: 80, views: 120, likes: 9, comments: 4, shares: 2, saved: 3 })
        expect(yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId })).toMatchObject({
          _tag: "Reported",
          metrics: { reach: 80, views: 120, likes: 9, comments: 4, shares: 2, saves: 3, clicks: null }
        })
        harness.fake.revokeScope("instagram_manage_insights")
        const withoutInsights = yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId })
        expect(withoutInsights).toMatchObject({ _tag: "Unreportable", reason: "unsupported" })
      })))

  it.effect("the probe names this login's permissions; a removed app is Refused", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const both = ["instagram_basic", "instagram_content_publish"]
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Alive", granted: both, needed: both, expiresAt: null })
        harness.fake.revokeScope("instagram_content_publish")
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Alive", granted: ["instagram_basic"] })
        harness.fake.revokeGrant()
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Refused" })
      })))
})
