import { Instagram } from "@herald/publishers"
import { InstagramFake } from "@herald/publishers/testing/instagram"
import { Duration } from "effect"
import S3rver from "s3rver"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeFixtures, tempDir } from "../media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { settledReceipt, syncedMetrics } from "./NetworkTest.js"

/**
 * The acceptance of Instagram's direct route through Instagram Login, end to end through the
 * reference server: an account connected through Herald's OAuth flow on the fake's consent page
 * (the code exchanged, then the long-lived token), media stored in a bucket (s3rver) whose
 * presigned URLs the fake downloads, posts of every kind published by the workers through the
 * container flow with Instagram's options, the options this login cannot carry refused at create
 * naming the account, a rate limit retried, a lapsed token (auth_expired, needs_reconnect), a
 * reconnect and a retry, metrics, the probe, and a takedown Instagram Login cannot do.
 */
const clientId = "9876543210987654"
const clientSecret = "instagram-test-secret"
const postUrl = /^https:\/\/www\.instagram\.com\/(p|reel)\/[A-Za-z0-9_-]{11}\/$/

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true"

describe("Instagram through Instagram Login (fake Instagram on loopback, media in a bucket)", () => {
  let fake: InstagramFake
  let s3: S3rver
  let herald: TestHerald
  const saved: Record<string, string | undefined> = {}
  const fixtures = makeFixtures()

  beforeAll(async () => {
    fake = await new InstagramFake({ clientId, clientSecret }).start()
    s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: tempDir("herald-s3rver-"), configureBuckets: [{ name: "herald-media" }] })
    const { port } = await s3.run()
    const variables = {
      HERALD_INSTAGRAM_API_URL: fake.url,
      HERALD_INSTAGRAM_AUTH_URL: fake.url,
      HERALD_INSTAGRAM_CLIENT_ID: clientId,
      HERALD_INSTAGRAM_CLIENT_SECRET: clientSecret,
      HERALD_S3_BUCKET: "herald-media",
      HERALD_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      HERALD_S3_FORCE_PATH_STYLE: "true",
      HERALD_S3_ACCESS_KEY_ID: "S3RVER",
      HERALD_S3_SECRET_ACCESS_KEY: "S3RVER"
    }
    for (const [name, value] of Object.entries(variables)) {
      saved[name] = process.env[name]
      process.env[name] = value
    }
    fake.defaultInsights = { reach: 80, views: 120, likes: 9, comments: 4, shares: 2, saved: 3 }
    herald = await startHerald({
      workers: true,
      // The throttled post goes again at once, not 7.5 to 15 seconds later, nor at the dispatcher's next poll a second on.
      retryBackoff: Duration.millis(100),
      dispatchPollInterval: Duration.millis(100),
      directRoutes: [Instagram.instagramDirectRoute],
      // The receipts are polled more often than 60 requests a minute allow.
      humanKeyRateLimit: 5000,
      // Synced as soon as published: the sync runs in the test's time.
      metrics: { metricsSchedule: { firstAfter: Duration.zero, every: Duration.hours(1), lastAfter: Duration.days(30) }, metricsPollInterval: Duration.millis(50) }
    })
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
    await s3?.close()
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
    herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, { token: herald.credentials.admin_token, ...init })
  const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })

  const connect = async () => {
    const started = await admin("/accounts/oauth", { method: "POST", json: { platform: "instagram" } })
    expect(started.status).toBe(201)
    const { authorize_url, redirect_uri } = await json(started)
    const callback = await fake.consent(authorize_url)
    expect(`${callback.origin}${callback.pathname}`).toBe(redirect_uri)
    const page = await fetch(callback)
    expect(page.status).toBe(200)
    const accounts = await json(await admin("/accounts"))
    return accounts.data.find((account: { platform: string; route: string }) => account.platform === "instagram" && account.route === "direct")
  }

  const upload = async (bytes: Buffer, name: string, type: string, extra: Record<string, string> = {}) => {
    const form = new FormData()
    form.set("file", new Blob([bytes], { type }), name)
    for (const [key, value] of Object.entries(extra)) form.set(key, value)
    const reply = await herald.call("/api/v1/media", { method: "POST", token: herald.credentials.human_key, body: form })
    expect(reply.status).toBe(200)
    return (await json(reply)).id as string
  }

  const settled = (postId: string) => settledReceipt(api, postId)

  const create = (account: { id: string }, body: Record<string, unknown>) => api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })

  const post = async (account: { id: string }, body: Record<string, unknown>) => {
    const created = await create(account, body)
    expect(created.status, JSON.stringify(await created.clone().json())).toBe(201)
    return (await json(created)).id as string
  }

  it("lists collaborators and cover_url, and not branded content or a first comment, in GET /posting-rules", async () => {
    const account = await connect()
    expect(account).toMatchObject({ status: "active", route: "direct", username: "grace.hopper" })
    const reply = await api(`/posting-rules?account_ids=${account.id}`)
    expect(reply.status).toBe(200)
    const rules = await json(reply)
    const keys = rules.data[0].options.map((option: { key: string }) => option.key)
    expect(keys).toEqual(expect.arrayContaining(["caption", "placement", "is_ai_generated", "collaborators", "cover_url"]))
    for (const key of ["is_paid_partnership", "branded_content_sponsors", "first_comment"]) expect(keys).not.toContain(key)
    expect(rules.data[0].can).toMatchObject({ first_comment: false, people_tags: false })
  })

  it("refuses at create what Instagram Login cannot carry, naming the account", async () => {
    const account = await connect()
    const image = await upload(fixtures.jpeg, "photo.jpg", "image/jpeg")
    for (const option of [{ first_comment: "first!" }, { is_paid_partnership: true }, { branded_content_sponsors: ["acme"] }]) {
      const refused = await create(account, { caption: "Not here", media_ids: [image], platform_configurations: { instagram: option } })
      expect(refused.status).toBe(400)
      const body = JSON.stringify(await json(refused))
      expect(body).toContain(Object.keys(option)[0])
      expect(body).toContain("instagram:grace.hopper")
    }
  })

  it("publishes an image, a reel, a story and a mixed carousel with their options, through the bucket's URLs", async () => {
    const account = await connect()
    const image = await upload(fixtures.jpeg, "photo.jpg", "image/jpeg", { alt_text: "a blue square" })
    const clip = await upload(fixtures.mp4, "clip.mp4", "video/mp4", { thumbnail_timestamp_ms: "500" })

    const feed = await settled(await post(account, {
      caption: "A blue square",
      media_ids: [image],
      platform_configurations: { instagram: { is_ai_generated: true, collaborators: ["ada.lovelace"] } }
    }))
    expect(feed.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(postUrl) })
    const feedPost = fake.livePosts().find((one) => one.id === feed.data[0].platform_post_id)
    expect(feedPost?.container.fields).toMatchObject({
      caption: "A blue square",
      alt_text: "a blue square",
      is_ai_generated: "true",
      collaborators: JSON.stringify(["ada.lovelace"])
    })
    expect(feed.data[0].url).toBe(`https://www.instagram.com/p/${feedPost?.shortcode}/`)

    const reel = await settled(await post(account, { caption: "A reel", media_ids: [clip], platform_configurations: { instagram: { placement: "reels" } } }))
    expect(reel.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(/\/reel\//) })
    expect(fake.livePosts().find((one) => one.id === reel.data[0].platform_post_id)?.container.fields).toMatchObject({
      media_type: "REELS",
      share_to_feed: "false",
      thumb_offset: "500"
    })

    const story = await settled(await post(account, { media_ids: [image], platform_configurations: { instagram: { placement: "stories" } } }))
    expect(story.data[0]).toMatchObject({ status: "success" })
    expect(fake.livePosts().find((one) => one.id === story.data[0].platform_post_id)).toMatchObject({ product: "STORY" })

    const carousel = await settled(await post(account, { caption: "Both", media_ids: [image, clip] }))
    expect(carousel.data[0]).toMatchObject({ status: "success" })
    const album = fake.livePosts().find((one) => one.id === carousel.data[0].platform_post_id)
    expect(album?.children.map((child) => child.fields["media_type"] ?? "IMAGE")).toEqual(["IMAGE", "VIDEO"])
  }, 120_000)

  it("retries a rate limit, reads metrics from insights, needs a reconnect once the token lapsed, retries after it, and says a takedown cannot be done here", async () => {
    const account = await connect()
    const image = await upload(fixtures.jpeg, "photo.jpg", "image/jpeg")

    // Application-level throttling (code 4) on the first call: retried by the dispatcher.
    fake.failNext({
      status: 400,
      body: { error: { message: "(#4) Application request limit reached", type: "OAuthException", code: 4, is_transient: true, fbtrace_id: "Athrottled" } }
    }, { only: "POST" })
    const throttled = await settled(await post(account, { caption: "Throttled once", media_ids: [image] }))
    expect(throttled.data[0]).toMatchObject({ status: "success" })
    expect(throttled.data[0].retries).toBeGreaterThanOrEqual(1)

    const [metrics] = await syncedMetrics(api, throttled.post_id)
    expect(metrics).toMatchObject({ reach: 80, views: 120, likes: 9, comments: 4, shares: 2, saves: 3 })

    fake.lapse()
    const expired = await settled(await post(account, { caption: "After the token lapsed", media_ids: [image] }))
    expect(expired.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    const marked = (await json(await admin("/accounts"))).data.find((one: { id: string }) => one.id === account.id)
    expect(marked.status).toBe("needs_reconnect")

    const again = await connect()
    expect(again).toMatchObject({ id: account.id, status: "active" })
    expect((await api(`/post-results/${expired.data[0].id}/retry`, { method: "POST" })).status).toBe(200)
    const afterRetry = await settled(expired.post_id)
    expect(afterRetry.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(postUrl) })

    const takedown = await api(`/post-results/${afterRetry.data[0].id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(409)
    expect(await json(takedown)).toMatchObject({ code: "takedown_unsupported", error: expect.stringContaining("in the instagram app") })
    expect(fake.livePosts().map((one) => one.id)).toContain(afterRetry.data[0].platform_post_id)
    expect((await settled(expired.post_id)).data[0]).toMatchObject({ status: "success" })
  }, 120_000)
})
