import { Instagram } from "@herald/publishers"
import { InstagramFake } from "@herald/publishers/testing/instagram"
import { Duration } from "effect"
import S3rver from "s3rver"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeFixtures, tempDir } from "../media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { adminOf, connectThroughConsent, setEnvironment, settledReceipt, syncedMetrics } from "./NetworkTest.js"

/**
 * Instagram through Facebook Login for Business, end to end through the reference server: the
 * consent started on the admin API with route facebook_login, Facebook's dialog on the fake
 * (graph.facebook.com), one account per Instagram account linked to a Page, the route's
 * capabilities on GET /social-accounts and GET /posting-rules (branded content, no first
 * comment), posts published by the workers through the container calls with branded content,
 * the options no direct login carries refused naming the account, a retried rate limit, metrics,
 * a Page token asked for again, and a takedown.
 */
const clientId = "987654321012345"
const clientSecret = "facebook-test-secret"
const postUrl = /^https:\/\/www\.instagram\.com\/(p|reel)\/[A-Za-z0-9_-]{11}\/$/

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true"

type Account = { id: string; platform: string; route: string; username: string; status: string }

describe("Instagram through Facebook Login (fake graph.facebook.com on loopback, media in a bucket)", () => {
  let fake: InstagramFake
  let s3: S3rver
  let herald: TestHerald
  let restore: () => void
  const fixtures = makeFixtures()

  beforeAll(async () => {
    fake = await new InstagramFake({
      clientId,
      clientSecret,
      login: "facebook",
      brands: { "acme.brand": "17841400000000099" },
      otherPages: [{ id: "104000000000078", name: "Plain Page", tasks: ["CREATE_CONTENT", "MANAGE"] }]
    }).start()
    s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: tempDir("herald-s3rver-"), configureBuckets: [{ name: "herald-media" }] })
    const { port } = await s3.run()
    // The route reads the Facebook app's settings.
    restore = setEnvironment({
      HERALD_FACEBOOK_API_URL: fake.url,
      HERALD_FACEBOOK_AUTH_URL: fake.url,
      HERALD_FACEBOOK_CLIENT_ID: clientId,
      HERALD_FACEBOOK_CLIENT_SECRET: clientSecret,
      HERALD_S3_BUCKET: "herald-media",
      HERALD_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      HERALD_S3_FORCE_PATH_STYLE: "true",
      HERALD_S3_ACCESS_KEY_ID: "S3RVER",
      HERALD_S3_SECRET_ACCESS_KEY: "S3RVER"
    })
    fake.defaultInsights = { reach: 80, views: 120, likes: 9, comments: 4, shares: 2, saved: 3 }
    herald = await startHerald({
      workers: true,
      // The throttled post goes again at once, not 7.5 to 15 seconds later, nor at the dispatcher's next poll a second on.
      retryBackoff: Duration.millis(100),
      dispatchPollInterval: Duration.millis(100),
      directRoutes: [Instagram.instagramFacebookLoginDirectRoute],
      // The receipts are polled more often than 60 requests a minute allow.
      humanKeyRateLimit: 5000,
      metrics: { metricsSchedule: { firstAfter: Duration.zero, every: Duration.hours(1), lastAfter: Duration.days(30) }, metricsPollInterval: Duration.millis(50) }
    })
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
    await s3?.close()
    restore?.()
  })

  const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => adminOf(herald)(path, init)
  const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })
  const settled = (postId: string) => settledReceipt(api, postId)

  /** The consent flow on route facebook_login; answers every Instagram account of that route. */
  const connect = async (): Promise<ReadonlyArray<Account>> => {
    await connectThroughConsent(herald, "instagram", fake, "facebook_login")
    return (await json(await admin("/accounts"))).data.filter((account: Account) => account.platform === "instagram" && account.route === "facebook_login")
  }

  const upload = async (bytes: Buffer, name: string, type: string) => {
    const form = new FormData()
    form.set("file", new Blob([bytes], { type }), name)
    const reply = await herald.call("/api/v1/media", { method: "POST", token: herald.credentials.human_key, body: form })
    expect(reply.status).toBe(200)
    return (await json(reply)).id as string
  }

  const post = async (account: Account, body: Record<string, unknown>) => {
    const created = await api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })
    expect(created.status, JSON.stringify(await created.clone().json())).toBe(201)
    return (await json(created)).id as string
  }

  it("connects one account per Instagram account linked to a Page; the route's capabilities list branded content and no first comment", async () => {
    const accounts = await connect()
    expect(accounts).toHaveLength(1)
    expect(accounts[0]).toMatchObject({ route: "facebook_login", username: "grace.hopper", status: "active" })
    const row = (await json(await api("/social-accounts"))).data.find((one: { id: string }) => one.id === accounts[0]!.id)
    expect(row).toMatchObject({ can: { first_comment: false, people_tags: false }, limits: { caption_chars: 2200, max_media: 10 } })
    const rules = (await json(await api(`/posting-rules?account_ids=${accounts[0]!.id}`))).data[0]
    const keys = rules.options.map((option: { key: string }) => option.key)
    expect(keys).toEqual(expect.arrayContaining(["is_ai_generated", "collaborators", "is_paid_partnership", "branded_content_sponsors"]))
    expect(keys).not.toContain("first_comment")

    const image = await upload(fixtures.jpeg, "photo.jpg", "image/jpeg")
    const refused = await api("/posts", {
      method: "POST",
      json: { social_accounts: [accounts[0]!.id], caption: "Not here", media_ids: [image], platform_configurations: { instagram: { first_comment: "first!" } } }
    })
    expect(refused.status).toBe(400)
    const body = JSON.stringify(await json(refused))
    expect(body).toContain("first_comment")
    expect(body).toContain("instagram:grace.hopper")
  })

  it("publishes with branded content, retries a rate limit, reads metrics, gets a new Page token, and takes a post down", async () => {
    const [account] = await connect()
    const image = await upload(fixtures.jpeg, "photo.jpg", "image/jpeg")
    const clip = await upload(fixtures.mp4, "clip.mp4", "video/mp4")

    const sponsored = await settled(await post(account!, {
      caption: "Sponsored",
      media_ids: [image],
      platform_configurations: { instagram: { is_paid_partnership: true, branded_content_sponsors: ["acme.brand"] } }
    }))
    expect(sponsored.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(postUrl) })
    expect(fake.livePosts().find((one) => one.id === sponsored.data[0].platform_post_id)?.container.fields).toMatchObject({
      is_paid_partnership: "true",
      branded_content_sponsor_ids: JSON.stringify(["17841400000000099"])
    })

    const reel = await settled(await post(account!, { caption: "A reel", media_ids: [clip], platform_configurations: { instagram: { placement: "reels" } } }))
    expect(reel.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(/\/reel\//) })

    fake.failNext({
      status: 400,
      body: { error: { message: "(#4) Application request limit reached", type: "OAuthException", code: 4, is_transient: true, fbtrace_id: "Athrottled" } }
    }, { only: "POST" })
    const throttled = await settled(await post(account!, { caption: "Throttled once", media_ids: [image] }))
    expect(throttled.data[0]).toMatchObject({ status: "success" })
    expect(throttled.data[0].retries).toBeGreaterThanOrEqual(1)

    const [metrics] = await syncedMetrics(api, throttled.post_id)
    expect(metrics).toMatchObject({ reach: 80, views: 120, likes: 9, comments: 4, shares: 2, saves: 3 })

    // The Page token dies; the user token kept beside it gets a new one and the post goes out.
    fake.expireToken()
    const renewed = await settled(await post(account!, { caption: "With a new Page token", media_ids: [image] }))
    expect(renewed.data[0]).toMatchObject({ status: "success" })
    expect(fake.facebook?.tokenCalls).toContain("page_token")

    const takedown = await api(`/post-results/${sponsored.data[0].id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(200)
    expect(fake.livePosts().map((one) => one.id)).not.toContain(sponsored.data[0].platform_post_id)
  }, 120_000)
})
