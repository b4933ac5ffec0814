/**
 * Instagram through Ayrshare beyond the contract suite: connecting with the keys (the account the
 * profile links, a wrong username, a profile without Instagram, the login variant's handle
 * lookups), what POST /post carries (people tags as userTags, stories, videos), a first comment
 * that fails after the post went out, the error envelope's codes, a 429's wait, metrics and the probe.
 */
import { type PublishRequest } from "@herald/core"
import { Headers } from "@effect/platform"
import { Cause, Exit, Option } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { classify } from "../../src/aggregator/AyrshareApi.js"
import { makeHarness, mediaItem, publicUrlOf } from "./harness.js"

type Harness = Awaited<ReturnType<typeof makeHarness>>

const failureOf = <A, E>(exit: Exit.Exit<A, E>) => Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined

describe("Ayrshare: connecting with the keys", () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await makeHarness("aggregator", { profiles: { "PROFILE-KEY-ACME-0001": { username: "acme.studio", instagramId: "1784" }, "EMPTY-PROFILE": { username: "nobody", instagramId: "1" } } })
    harness.fake.unlinked.add("EMPTY-PROFILE")
  })
  afterAll(() => harness.stop())

  it("connects the Instagram account the profile links, its keys stored with it", async () => {
    const account = await harness.connect("@Acme.Studio")
    expect(account).toMatchObject({ platform: "instagram", username: "acme.studio", route: "aggregator", status: "active" })
    expect(harness.fake.requests.at(-1)).toMatchObject({ method: "GET", path: "user", profileKey: "PROFILE-KEY-ACME-0001" })
  })

  it("refuses a username other than the profile's account, naming both", async () => {
    const failure = failureOf(await harness.connectExit("someone.else"))
    expect(failure).toMatchObject({ _tag: "ConnectionRefused", code: "username_mismatch" })
    expect((failure as Error).message).toContain("@acme.studio")
  })

  it("refuses a profile that links no Instagram account", async () => {
    const failure = failureOf(await harness.connectExit("nobody", { apiKey: "AYR-TEST-API-KEY-0001", profileKey: "EMPTY-PROFILE" }))
    expect(failure).toMatchObject({ _tag: "ConnectionRefused", code: "instagram_not_linked" })
  })

  it("refuses a wrong API key as Ayrshare does, without echoing it", async () => {
    const failure = failureOf(await harness.connectExit("acme.studio", { apiKey: "AYR-WRONG-KEY", profileKey: "PROFILE-KEY-ACME-0001" }))
    expect(failure).toMatchObject({ _tag: "ConnectionRefused", code: "ayrshare_102" })
    expect(JSON.stringify(failure)).not.toContain("AYR-WRONG-KEY")
  })
})

describe("Ayrshare: the login variant", () => {
  it("is refused when the keys cannot look handles up (no Brand API on the plan)", async () => {
    const harness = await makeHarness("aggregator_login", { brandApi: false })
    try {
      expect(failureOf(await harness.connectExit())).toMatchObject({ _tag: "ConnectionRefused", code: "handle_lookup_unavailable" })
    } finally {
      await harness.stop()
    }
  })

  it("confirms people tags' handles through the Brand API; the plain route has no lookup", async () => {
    const login = await makeHarness("aggregator_login")
    const plain = await makeHarness("aggregator")
    try {
      const account = await login.connect()
      const unknown = await login.runtime.runPromise(login.route.adapters.publisher.unknownHandles!(account, ["ana.lopez", "@BEN_K", "nobody.here"]))
      expect(unknown).toEqual(["nobody.here"])
      expect(plain.route.adapters.publisher.unknownHandles).toBeUndefined()
    } finally {
      await login.stop()
      await plain.stop()
    }
  })
})

describe("Ayrshare: publishing", () => {
  let harness: Harness
  let request: (extra: Partial<PublishRequest>) => PublishRequest
  beforeAll(async () => {
    harness = await makeHarness("aggregator_login")
    const account = await harness.connect()
    request = (extra) => ({ account, text: `Caption ${randomUUID().slice(0, 6)}`, media: [], configuration: undefined, marker: randomUUID(), ...extra })
  })
  afterAll(() => harness.stop())
  const publish = (sent: PublishRequest) => harness.runtime.runPromise(harness.route.adapters.publisher.publish(sent))
  const publishExit = (sent: PublishRequest) => harness.runtime.runPromiseExit(harness.route.adapters.publisher.publish(sent))

  it("sends people tags as userTags at the image's centre, and the receipt carries Ayrshare's id and Instagram's URL", async () => {
    const image = harness.store(mediaItem("image", { peopleTags: ["@ana.lopez", "ben_k"] }))
    const published = await publish(request({ media: [image] }))
    expect(published.url).toMatch(/^https:\/\/www\.instagram\.com\/p\//)
    const body = harness.fake.posts.get(published.platformPostId)!.body
    expect(body).toMatchObject({
      platforms: ["instagram"],
      mediaUrls: [publicUrlOf(image.storageKey)],
      instagramOptions: { userTags: [{ username: "ana.lopez", x: 0.5, y: 0.5 }, { username: "ben_k", x: 0.5, y: 0.5 }] }
    })
    expect(harness.fake.requests.at(-1)).toMatchObject({ profileKey: "PROFILE-KEY-ACME-0001" })
  })

  it("a story's tags are bare handles (a mention sticker), and the story flag is set", async () => {
    const image = harness.store(mediaItem("image", { peopleTags: ["ana.lopez"] }))
    const published = await publish(request({ media: [image], configuration: { placement: "stories" } }))
    expect(harness.fake.posts.get(published.platformPostId)!.body.instagramOptions).toEqual({ stories: true, userTags: [{ username: "ana.lopez" }] })
  })

  it("a video says it is one (presigned URLs have no extension) with its thumbnail offset", async () => {
    const video = harness.store(mediaItem("video", { thumbnailTimestampMs: 1500 }))
    const published = await publish(request({ media: [video] }))
    expect(harness.fake.posts.get(published.platformPostId)!.body).toMatchObject({ isVideo: true, instagramOptions: { thumbNailOffset: 1500 } })
  })

  it("a carousel holding a video carries no isVideo (Ayrshare takes it on a single video only)", async () => {
    const sent = [harness.store(mediaItem("image")), harness.store(mediaItem("video"))]
    const published = await publish(request({ media: sent }))
    const body = harness.fake.posts.get(published.platformPostId)!.body
    expect(body.mediaUrls).toHaveLength(2)
    expect(body).not.toHaveProperty("isVideo")
  })

  it("a reel's cover URL is Ayrshare's thumbNail", async () => {
    const video = harness.store(mediaItem("video"))
    const published = await publish(request({ media: [video], configuration: { cover_url: "https://cdn.example.com/cover.jpg" } }))
    expect(harness.fake.posts.get(published.platformPostId)!.body.instagramOptions).toMatchObject({ thumbNail: "https://cdn.example.com/cover.jpg" })
  })

  it("a first comment that fails after the post went out is a note on the receipt, not a failure", async () => {
    // The post is made; the call right after it (the comment) is refused.
    const posts = harness.fake.posts
    const set = posts.set.bind(posts)
    posts.set = (id, post) => {
      harness.fake.failNext({ status: 400, body: { status: "error", code: 220, message: "Comments are disabled on this post." } })
      posts.set = set
      return set(id, post)
    }
    const noted = await publish(request({ media: [harness.store(mediaItem("image"))], configuration: { first_comment: "hello" } }))
    expect(noted.note?.text).toContain("first comment was not added")
    expect(noted.note?.text).toContain("Comments are disabled")
    expect(posts.get(noted.platformPostId)!.comments).toEqual([])
  })

  it("media without a public URL is media_rejected before anything is sent", async () => {
    const failure = failureOf(await publishExit(request({ media: [mediaItem("image")] })))
    expect(failure).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "media_url_unavailable" } })
  })

  it("Ayrshare's media download error (440) is media_rejected", async () => {
    harness.fake.failNext({ status: 400, body: { status: "error", errors: [{ action: "post", status: "error", code: 440, message: "Instagram could not download the media.", platform: "instagram" }] } })
    const failure = failureOf(await publishExit(request({ media: [harness.store(mediaItem("image"))] })))
    expect(failure).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "ayrshare_440" } })
  })

  it("a 429 without a wait header waits out Ayrshare's 5-minute window; a Retry-After it sends is kept", async () => {
    harness.fake.failNext({ status: 429 })
    expect(failureOf(await publishExit(request({ media: [harness.store(mediaItem("image"))] })))).toMatchObject({
      _tag: "PublishFailed",
      transient: true,
      retryAfterMs: 300_000,
      error: { category: "rate_limited", code: "ayrshare_429" }
    })
    harness.fake.failNext({ status: 429, headers: { "retry-after": "42" } })
    expect(failureOf(await publishExit(request({ media: [harness.store(mediaItem("image"))] })))).toMatchObject({
      _tag: "PublishFailed",
      transient: true,
      retryAfterMs: 42_000,
      error: { category: "rate_limited" }
    })
  })

  it("metrics and the probe wait out the same window on a 429 without a wait header", async () => {
    const account = request({}).account
    const limited = { _tag: "PlatformCallFailed", retryAfterMs: 300_000, error: { category: "rate_limited", code: "ayrshare_429" } }
    harness.fake.failNext({ status: 429 })
    expect(failureOf(await harness.runtime.runPromiseExit(harness.route.adapters.metrics!.fetch({ account, platformPostId: "any" })))).toMatchObject(limited)
    harness.fake.failNext({ status: 429 })
    expect(failureOf(await harness.runtime.runPromiseExit(harness.route.adapters.probe!.check(account)))).toMatchObject(limited)
  })

  it("metrics map Instagram's counts; a post deleted in the app has none for good", async () => {
    const published = await publish(request({ media: [harness.store(mediaItem("image"))] }))
    const metrics = harness.route.adapters.metrics!
    const reading = await harness.runtime.runPromise(metrics.fetch({ account: request({}).account, platformPostId: published.platformPostId }))
    expect(reading).toMatchObject({ _tag: "Reported", metrics: { views: 55, reach: 40, likes: 7, comments: 2, shares: 3, saves: 1, clicks: null } })
    // Deleted by hand in the Instagram app (Ayrshare's API deletes no published Instagram post).
    harness.fake.posts.delete(published.platformPostId)
    const gone = await harness.runtime.runPromise(metrics.fetch({ account: request({}).account, platformPostId: published.platformPostId }))
    expect(gone).toMatchObject({ _tag: "Unreportable", reason: "deleted" })
  })

  it("the probe is Refused once the profile's Instagram authorization is lost", async () => {
    const account = request({}).account
    expect((await harness.runtime.runPromise(harness.route.adapters.probe!.check(account)))._tag).toBe("Alive")
    harness.fake.unlinked.add("PROFILE-KEY-ACME-0001")
    try {
      expect(await harness.runtime.runPromise(harness.route.adapters.probe!.check(account))).toMatchObject({ _tag: "Refused", code: "instagram_unlinked" })
    } finally {
      harness.fake.unlinked.delete("PROFILE-KEY-ACME-0001")
    }
  })
})

describe("Ayrshare's error envelope on the taxonomy", () => {
  const headers = Headers.empty
  it.each([
    [400, { status: "error", errors: [{ code: 161, message: "authorization lost", platform: "instagram" }] }, "auth_expired", "ayrshare_161"],
    [400, { status: "error", errors: [{ code: 110, message: "duplicate post", platform: "instagram" }] }, "content_rejected", "ayrshare_110"],
    [401, { status: "error", code: 102, message: "API Key not valid" }, "auth_expired", "ayrshare_102"],
    [403, { status: "error", code: 171, message: "not enabled" }, "permission_missing", "ayrshare_171"],
    [404, { status: "error", code: 186, message: "Post not found" }, "not_found", "ayrshare_186"],
    [429, { status: "error", code: 429, message: "Too many requests" }, "rate_limited", "ayrshare_429"],
    [502, "<html>Bad gateway</html>", "transient", "ayrshare_http_502"]
  ] as const)("HTTP %i %j is %s", (status, body, category, code) => {
    expect(classify({ status, body, headers })).toMatchObject({ category, code })
  })
})
