import { describe, expect, it } from "@effect/vitest"
import type { PublishRequest, SocialAccount } from "@herald/core"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { makeHarness, mediaItem } from "./harness.js"

type Harness = Awaited<ReturnType<typeof makeHarness>>

const withHarness = <A, E>(options: Parameters<typeof makeHarness>[0], body: (harness: Harness, accounts: ReadonlyArray<SocialAccount>) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.gen(function*() {
    const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness(options)), (opened) => Effect.promise(() => opened.stop()))
    const accounts = yield* Effect.promise(() => harness.connect())
    return yield* body(harness, accounts)
  }))

const request = (account: SocialAccount, text: string | null, extra: Partial<PublishRequest> = {}): PublishRequest => ({
  account,
  text,
  media: [],
  configuration: undefined,
  marker: randomUUID(),
  ...extra
})

const page = (id: string, name: string, tasks: ReadonlyArray<string>) => ({ id, name, tasks })

describe("Facebook Pages' connection", () => {
  it.effect("connects each Page the user may create content on, with its own token; never the user", () =>
    withHarness(
      { pages: [page("1001", "Bakery", ["CREATE_CONTENT"]), page("1002", "Cafe", ["CREATE_CONTENT", "MANAGE"]), page("1003", "Reader", ["ANALYZE"]), page("1004", "Unticked", ["CREATE_CONTENT"])], withheld: ["1004"] },
      (harness, accounts) =>
        Effect.sync(() => {
          expect(accounts.map((account) => account.username).sort()).toEqual(["Bakery", "Cafe"])
          const tokens = [...harness.data.credentials.values()]
          expect(tokens).toHaveLength(2)
          expect(tokens.map((stored) => harness.fake.login.pageToken(stored.access_token as string)?.pageId).sort()).toEqual(["1001", "1002"])
          // A Page token from a long-lived user token has no expiry.
          expect(tokens.every((stored) => stored.expires_at === undefined)).toBe(true)
        })
    ))

  it.effect("a login granting no Page to post to connects nothing and says why", () =>
    Effect.scoped(Effect.gen(function*() {
      const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness({ pages: [page("1003", "Reader", ["ANALYZE"])] })), (opened) => Effect.promise(() => opened.stop()))
      const failure = yield* Effect.flip(Effect.tryPromise(() => harness.connect()))
      expect(String(failure.error)).toContain("no_pages")
      expect(harness.data.accounts.size).toBe(0)
    })))
})

describe("Facebook Pages' publisher", () => {
  it.effect("uploads a video by chunks at the offsets Facebook names, and finishes with the description", () =>
    withHarness({ chunkBytes: 1000 }, (harness, [account]) =>
      Effect.gen(function*() {
        const clip = harness.withBytes(mediaItem("video"), Uint8Array.from({ length: 3500 }, (_, i) => i % 251))
        const published = yield* harness.route.adapters.publisher.publish(request(account!, "Kneading", { media: [clip] }))
        const transfers = harness.fake.server.calls.filter((call) => call.startsWith("POST ") && call.includes("/videos"))
        expect(transfers.length).toBe(6) // start, four transfers, finish
        expect(harness.fake.livePosts().find((post) => post.id === published.platformPostId)).toMatchObject({ kind: "video", message: "Kneading", media: [{ bytes: 3500 }] })
      })))

  it.effect("sends photos as unpublished photos attached to one feed post, with their alt text", () =>
    withHarness({}, (harness, [account]) =>
      Effect.gen(function*() {
        const photos = [1, 2, 3].map((n) => harness.withBytes(mediaItem("image", { altText: `loaf ${n}` }), new Uint8Array([255, 216, 255, n])))
        const published = yield* harness.route.adapters.publisher.publish(request(account!, "Three loaves", { media: photos }))
        expect(harness.fake.livePosts().find((post) => post.id === published.platformPostId)).toMatchObject({
          kind: "feed",
          message: "Three loaves",
          media: [{ altText: "loaf 1" }, { altText: "loaf 2" }, { altText: "loaf 3" }]
        })
      })))

  it.effect("publishes a video story and a photo story", () =>
    withHarness({}, (harness, [account]) =>
      Effect.gen(function*() {
        const clip = harness.withBytes(mediaItem("video"), new Uint8Array(2048).fill(7))
        const photo = harness.withBytes(mediaItem("image"), new Uint8Array([255, 216, 255, 224]))
        for (const item of [clip, photo]) {
          const published = yield* harness.route.adapters.publisher.publish(request(account!, null, { media: [item], configuration: { placement: "stories" } }))
          expect(harness.fake.livePosts().find((post) => post.id === published.platformPostId)).toMatchObject({ kind: "story", media: [{ kind: item.kind === "video" ? "video" : "photo" }] })
        }
      })))

  it.effect("a Page token Facebook stopped taking is asked for again with the user token", () =>
    withHarness({}, (harness, [account]) =>
      Effect.gen(function*() {
        const before = harness.data.credentials.get(account!.id)?.access_token
        harness.fake.login.invalidatePageTokens()
        yield* harness.route.adapters.publisher.publish(request(account!, "After the session changed"))
        expect(harness.fake.login.tokenCalls.filter((call) => call === "page_token")).toHaveLength(1)
        expect(harness.data.credentials.get(account!.id)?.access_token).not.toBe(before)
      })))
})

describe("Facebook Pages' metrics and probe", () => {
  it.effect("reads views and reach from post_media_view and post_total_media_view_unique, reactions, comments and shares", () =>
    withHarness({}, (harness, [account]) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account!, "Measured"))
        harness.fake.insights.set(published.platformPostId, { post_media_view: 120, post_total_media_view_unique: 80, post_reactions_by_type_total: { like: 5, love: 2 }, shares: 3 })
        harness.fake.comments.set(published.platformPostId, 4)
        const reading = yield* harness.route.adapters.metrics!.fetch({ account: account!, platformPostId: published.platformPostId })
        expect(reading).toMatchObject({ _tag: "Reported", metrics: { views: 120, reach: 80, likes: 7, comments: 4, shares: 3, saves: null, clicks: null } })
      })))

  it.effect("reads a reel's plays from video_insights; a deleted post and a story are unreportable", () =>
    withHarness({}, (harness, [account]) =>
      Effect.gen(function*() {
        const clip = harness.withBytes(mediaItem("video"), new Uint8Array(2048).fill(3))
        const reel = yield* harness.route.adapters.publisher.publish(request(account!, "A reel", { media: [clip], configuration: { placement: "reels" } }))
        harness.fake.insights.set(reel.platformPostId, { blue_reels_play_count: 900, post_video_likes_by_reaction_type: { REACTION_LIKE: 12 } })
        const metrics = harness.route.adapters.metrics!
        expect(yield* metrics.fetch({ account: account!, platformPostId: reel.platformPostId })).toMatchObject({ _tag: "Reported", metrics: { views: 900, videoViews: 900, likes: 12, reach: null } })
        const photo = harness.withBytes(mediaItem("image"), new Uint8Array([255, 216, 255, 224]))
        const story = yield* harness.route.adapters.publisher.publish(request(account!, null, { media: [photo], configuration: { placement: "stories" } }))
        expect(yield* metrics.fetch({ account: account!, platformPostId: story.platformPostId })).toMatchObject({ _tag: "Unreportable", reason: "unsupported" })
        yield* harness.route.adapters.publisher.takedown!(account!, reel.platformPostId)
        expect(yield* metrics.fetch({ account: account!, platformPostId: reel.platformPostId })).toMatchObject({ _tag: "Unreportable", reason: "deleted" })
      })))

  it.effect("the probe is Alive for a working Page, Refused once the login is revoked", () =>
    withHarness({}, (harness, [account]) =>
      Effect.gen(function*() {
        const probe = harness.route.adapters.probe!
        expect(yield* probe.check(account!)).toMatchObject({ _tag: "Alive", granted: ["pages_show_list", "pages_read_engagement", "pages_manage_posts"] })
        harness.fake.login.revokeGrant()
        expect(yield* probe.check(account!)).toMatchObject({ _tag: "Refused" })
      })))
})
