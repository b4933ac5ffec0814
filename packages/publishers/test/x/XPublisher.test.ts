import { type PublishRequest, type SocialAccount } from "@herald/core"
import { Clock, Duration, Effect, Either, Option, TestContext } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hungCallDeadlines, shortDeadlines } from "../kit/Deadlines.js"
import { driven } from "../kit/Driven.js"
import type { XFake } from "./XFake.js"
import { startXHarness, type XHarness } from "./xHarness.js"

let harness: XHarness
let account: SocialAccount

beforeAll(async () => {
  harness = await startXHarness({ processingPolls: 2, checkAfterSecs: 1 })
  account = await harness.connect()
})
afterAll(() => harness.close())

let counter = 0
/** A text no earlier test posted: X refuses duplicates. */
const fresh = (words = "Herald says hello") => `${words} #${++counter} ${Date.now()}`

const request = (text: string | null, extra: Partial<PublishRequest> = {}): PublishRequest => ({
  account,
  text,
  media: [],
  configuration: {},
  marker: `delivery-${counter}`,
  ...extra
})

const publish = (req: PublishRequest) => harness.run(Effect.either(harness.adapters.publisher.publish(req)))
/** As `publish`, with the processing waits on a TestClock moved on as soon as the publish sleeps; answers how long they were too. */
const publishDriven = (req: PublishRequest) =>
  harness.run(Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const result = yield* Effect.either(Effect.flatten(driven(harness.adapters.publisher.publish(req))))
    return { result, waitedMs: (yield* Clock.currentTimeMillis) - started }
  }).pipe(Effect.provide(TestContext.TestContext)))
const stored = (id: string) => harness.fake.stored().find((post) => post.id === id)

const bytes = (size: number, seed = 7) => Uint8Array.from({ length: size }, (_, index) => (index * seed) % 251)

describe("X direct route against the fake", () => {
  it("connects through the consent URL: PKCE S256, the granted scopes, the X username", () => {
    expect(account.username).toBe(harness.fake.user.username)
    const credentials = harness.credentials(account)!
    expect(String(credentials.scope).split(" ").sort()).toEqual(["media.write", "offline.access", "tweet.read", "tweet.write", "users.read"])
    expect(credentials.refresh_token).toMatch(/^xrt-/)
    expect(Date.parse(String(credentials.expires_at))).toBeGreaterThan(Date.now() + 7000_000)
  })

  it("publishes a text post; the receipt carries https://x.com/<username>/status/<id>", async () => {
    const text = fresh()
    const result = await publish(request(text))
    const published = Either.getOrThrow(result)
    expect(published.url).toBe(`https://x.com/${harness.fake.user.username}/status/${published.platformPostId}`)
    expect(published.platformPostId).toMatch(/^[0-9]{19}$/)
    expect(stored(published.platformPostId)?.text).toBe(text)
  })

  it("uploads an image in one call with its alt text, and attaches it", async () => {
    const image = harness.storeMedia({ kind: "image", mime: "image/jpeg", bytes: bytes(3000), altText: "A lighthouse at dusk" })
    const published = Either.getOrThrow(await publish(request(fresh(), { media: [image] })))
    const [mediaId] = stored(published.platformPostId)!.mediaIds
    const uploaded = harness.fake.media(mediaId!)!
    expect(uploaded).toMatchObject({ category: "tweet_image", totalBytes: 3000, altText: "A lighthouse at dusk" })
  })

  it("uploads a video in 1 MiB segments, waits out processing, then posts", async () => {
    const video = harness.storeMedia({ kind: "video", mime: "video/mp4", bytes: bytes(2.5 * 1024 * 1024) })
    const { result, waitedMs } = await publishDriven(request(fresh(), { media: [video] }))
    const published = Either.getOrThrow(result)
    const uploaded = harness.fake.media(stored(published.platformPostId)!.mediaIds[0]!)!
    expect(uploaded).toMatchObject({ category: "tweet_video", segments: 3, received: 2.5 * 1024 * 1024, pollsLeft: 0 })
    const statusPolls = harness.fake.calls().filter((call) => call === "GET /2/media/upload").length
    expect(statusPolls).toBeGreaterThanOrEqual(2)
    // Each status read came no sooner than the check_after_secs X gave (a second, twice).
    expect(waitedMs).toBeGreaterThanOrEqual(2000)
  }, 20_000)

  it("sends a GIF as tweet_gif through the chunked upload, with alt text", async () => {
    const gif = harness.storeMedia({ kind: "image", mime: "image/gif", bytes: bytes(5000), altText: "A cat nods" })
    const published = Either.getOrThrow((await publishDriven(request(fresh(), { media: [gif] }))).result)
    expect(harness.fake.media(stored(published.platformPostId)!.mediaIds[0]!)).toMatchObject({ category: "tweet_gif", altText: "A cat nods" })
  }, 20_000)

  it("a video X fails to process is media_rejected, and no post is made", async () => {
    harness.fake.failNextProcessing()
    const before = harness.fake.stored().length
    const video = harness.storeMedia({ kind: "video", mime: "video/mp4", bytes: bytes(1000) })
    const { result } = await publishDriven(request(fresh(), { media: [video] }))
    expect(Either.isLeft(result) && result.left._tag === "PublishFailed" && result.left.error.category).toBe("media_rejected")
    expect(harness.fake.stored().length).toBe(before)
  }, 20_000)

  it("carries the poll (a day when no duration is given) and reply_settings as X names them", async () => {
    const published = Either.getOrThrow(await publish(request(fresh("Which one?"), {
      configuration: { poll: { options: ["Tea", "Coffee"] }, reply_settings: "mentioned_users" }
    })))
    expect(stored(published.platformPostId)).toMatchObject({
      poll: { options: ["Tea", "Coffee"], duration_minutes: 1440 },
      replySettings: "mentionedUsers"
    })
  })

  it("sends reply_settings everyone as no field at all", async () => {
    const published = Either.getOrThrow(await publish(request(fresh(), { configuration: { reply_settings: "everyone" } })))
    expect(stored(published.platformPostId)!.replySettings).toBeNull()
  })

  it("chains a thread reply to reply, and puts the first comment under the main post", async () => {
    const published = Either.getOrThrow(await publish(request(fresh("Thread start"), {
      configuration: { thread: [fresh("second"), fresh("third")], first_comment: fresh("Link in here") }
    })))
    const main = published.platformPostId
    const second = harness.fake.stored().find((post) => post.inReplyTo === main && post.text.startsWith("second"))!
    const third = harness.fake.stored().find((post) => post.inReplyTo === second.id)!
    const comment = harness.fake.stored().find((post) => post.inReplyTo === main && post.text.startsWith("Link in here"))
    expect(third.text.startsWith("third")).toBe(true)
    expect(comment).toBeDefined()
    expect(published.note).toBeNull()
    expect(published.followUpPostIds).toEqual([second.id, third.id, comment!.id])
  })

  it("takedown of a thread deletes every post the publish made, follow-ups and first comment first", async () => {
    const published = Either.getOrThrow(await publish(request(fresh("Thread to remove"), {
      configuration: { thread: [fresh("two"), fresh("three")], first_comment: fresh("comment") }
    })))
    const made = [published.platformPostId, ...published.followUpPostIds!]
    expect(made.every((id) => stored(id) !== undefined)).toBe(true)
    const deletes = harness.fake.calls().length
    await harness.run(harness.adapters.publisher.takedown!(account, published.platformPostId, published.followUpPostIds))
    expect(made.map((id) => stored(id))).toEqual([undefined, undefined, undefined, undefined])
    // Newest first, the main post last.
    expect(harness.fake.calls().slice(deletes).filter((line) => line.startsWith("DELETE")))
      .toEqual([...made.slice(1).reverse(), made[0]].map((id) => `DELETE /2/tweets/${id}`))
  })

  it("takedown of a thread whose follow-up is gone already still deletes the rest", async () => {
    const published = Either.getOrThrow(await publish(request(fresh("Thread part gone"), { configuration: { thread: [fresh("two")] } })))
    const [followUp] = published.followUpPostIds!
    await harness.run(harness.adapters.publisher.takedown!(account, followUp!))
    await harness.run(harness.adapters.publisher.takedown!(account, published.platformPostId, published.followUpPostIds))
    expect(stored(published.platformPostId)).toBeUndefined()
  })

  it("a refused follow-up leaves the main post published and says so in the note", async () => {
    const first = fresh("already said")
    Either.getOrThrow(await publish(request(first)))
    const published = Either.getOrThrow(await publish(request(fresh("Main"), { configuration: { thread: [first] } })))
    expect(published.note?.text).toMatch(/follow-up tweet 1 was refused: You are not allowed to create a Tweet with duplicate content/)
    expect(published.note?.kind).toBeNull()
  })

  it("a duplicate is content_rejected and not retried", async () => {
    const text = fresh()
    Either.getOrThrow(await publish(request(text)))
    const result = await publish(request(text))
    expect(Either.isLeft(result) && result.left._tag === "PublishFailed" && result.left).toMatchObject({
      error: { category: "content_rejected", message: "You are not allowed to create a Tweet with duplicate content." },
      transient: false
    })
  })

  it("text over 280 by X's weighted count is refused by the fake (content_rejected)", async () => {
    // 141 CJK characters weigh 282.
    const result = await publish(request("日".repeat(141)))
    expect(Either.isLeft(result) && result.left._tag === "PublishFailed" && result.left.error.category).toBe("content_rejected")
  })

  it("an expired access token is refreshed once and the publish goes through", async () => {
    const refreshes = harness.fake.refreshes()
    harness.fake.expireToken()
    const published = Either.getOrThrow(await publish(request(fresh())))
    expect(stored(published.platformPostId)).toBeDefined()
    expect(harness.fake.refreshes()).toBe(refreshes + 1)
  })

  it("a revoked grant is auth_expired and needs_reconnect; a reconnect and a retry succeed", async () => {
    harness.fake.revokeGrant()
    const text = fresh()
    const result = await publish(request(text))
    expect(Either.isLeft(result) && result.left._tag === "PublishFailed" && result.left.error.category).toBe("auth_expired")
    expect(harness.status(account)).toBe("needs_reconnect")
    const again = await harness.connect()
    expect(again.id).toBe(account.id)
    expect(harness.status(account)).toBe("active")
    const published = Either.getOrThrow(await publish(request(text)))
    expect(stored(published.platformPostId)?.text).toBe(text)
  })

  it("a token without tweet.write is permission_missing", async () => {
    const mine = await harness.connect()
    harness.fake.revokeScope(harness.fake.publishScope)
    try {
      const result = await publish(request(fresh(), { account: mine }))
      expect(Either.isLeft(result) && result.left._tag === "PublishFailed" && result.left.error.category).toBe("permission_missing")
    } finally {
      account = await harness.connect()
    }
  })

  it("a 429 is rate_limited with X's reset as the wait; a spent 24-hour limit waits for its own reset", async () => {
    const reset = Math.floor(Date.now() / 1000) + 600
    harness.fake.failNext({
      status: 429,
      body: { title: "Too Many Requests", detail: "Too Many Requests", type: "about:blank", status: 429 },
      headers: { "x-rate-limit-limit": "100", "x-rate-limit-remaining": "0", "x-rate-limit-reset": String(reset) }
    })
    const result = await publish(request(fresh()))
    const failure = Either.isLeft(result) && result.left._tag === "PublishFailed" ? result.left : undefined
    expect(failure?.error.category).toBe("rate_limited")
    expect(failure?.transient).toBe(true)
    expect(failure?.retryAfterMs).toBeGreaterThan(590_000)
    expect(failure?.retryAfterMs).toBeLessThanOrEqual(600_000)

    const day = Math.floor(Date.now() / 1000) + 20_000
    harness.fake.failNext({
      status: 429,
      body: { title: "Too Many Requests", detail: "Too Many Requests", type: "about:blank", status: 429 },
      headers: { "x-rate-limit-reset": String(reset), "x-user-limit-24hour-remaining": "0", "x-user-limit-24hour-reset": String(day) }
    })
    const daily = await publish(request(fresh()))
    expect(Either.isLeft(daily) && daily.left._tag === "PublishFailed" && daily.left.retryAfterMs).toBeGreaterThan(19_990_000)
  })

  it("a 503 is transient", async () => {
    harness.fake.failNext({ status: 503, body: { title: "Service Unavailable", detail: "Service Unavailable", type: "about:blank", status: 503 } })
    const result = await publish(request(fresh()))
    expect(Either.isLeft(result) && result.left._tag === "PublishFailed" && result.left).toMatchObject({ error: { category: "transient" }, transient: true })
  })

  it("a malformed 201 is an unknown outcome", async () => {
    harness.fake.failNext({ status: 201, body: "<html>oops</html>", headers: { "content-type": "text/html" } })
    const result = await publish(request(fresh()))
    expect(Either.isLeft(result) && result.left._tag).toBe("OutcomeUnknown")
  })

  it.each([
    ["connection drops after X acted", (fake: XFake) => fake.loseAnswerNext(), shortDeadlines, /UND_ERR_SOCKET/],
    // A text post is one call, the one whose answer never comes: no answered call runs under these deadlines.
    ["answer never comes", (fake: XFake) => fake.hangNext(), hungCallDeadlines, new RegExp(`did not answer within ${Duration.toMillis(hungCallDeadlines.publish)} ms`)]
  ])("a create whose %s is an unknown outcome; reconcile finds the post, so nothing is posted twice", async (_case, lose, deadlines, detail) => {
    const text = fresh("Lost answer, see https://example.com/a?b=1 & more")
    const req = request(text)
    const losing = await harness.routeWithin(deadlines)
    lose(harness.fake)
    const result = await harness.run(Effect.either(losing.adapters.publisher.publish(req)))
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "OutcomeUnknown", detail: expect.stringMatching(detail) })
    expect(harness.fake.stored().filter((post) => post.text === text)).toHaveLength(1)
    const found = await harness.run(harness.adapters.publisher.reconcile!(req))
    const post = harness.fake.stored().find((stored) => stored.text === text)!
    expect(Option.getOrThrow(found).platformPostId).toBe(post.id)
    expect(Option.getOrThrow(found).url).toBe(`https://x.com/${account.username}/status/${post.id}`)
  })

  it("reconcile finds nothing when the create never reached X", async () => {
    const found = await harness.run(harness.adapters.publisher.reconcile!(request(fresh("never sent"))))
    expect(Option.isNone(found)).toBe(true)
  })

  it("takedown deletes the post; a second takedown is AlreadyGone", async () => {
    const published = Either.getOrThrow(await publish(request(fresh())))
    await harness.run(harness.adapters.publisher.takedown!(account, published.platformPostId))
    expect(stored(published.platformPostId)).toBeUndefined()
    const again = await harness.run(Effect.either(harness.adapters.publisher.takedown!(account, published.platformPostId)))
    expect(Either.isLeft(again) && again.left._tag).toBe("AlreadyGone")
  })

  it("metrics map public and owner metrics onto the contract's names; a deleted post is Unreportable", async () => {
    const published = Either.getOrThrow(await publish(request(fresh())))
    const reading = await harness.run(harness.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId }))
    expect(reading).toMatchObject({
      _tag: "Reported",
      metrics: { views: 121, reach: null, likes: 5, comments: 3, shares: 3, saves: 4, clicks: 7, videoViews: null }
    })
    await harness.run(harness.adapters.publisher.takedown!(account, published.platformPostId))
    const gone = await harness.run(harness.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId }))
    expect(gone).toMatchObject({ _tag: "Unreportable", reason: "deleted" })
  })

  it("the probe says Alive with the granted scopes and expiry; Refused once the grant is revoked", async () => {
    const health = await harness.run(harness.adapters.probe!.check(account))
    expect(health._tag).toBe("Alive")
    if (health._tag === "Alive") {
      expect([...health.granted].sort()).toEqual([...health.needed].sort())
      expect(health.expiresAt).not.toBeNull()
    }
    harness.fake.revokeGrant()
    const refused = await harness.run(harness.adapters.probe!.check(account))
    expect(refused._tag).toBe("Refused")
    account = await harness.connect()
  })
})
