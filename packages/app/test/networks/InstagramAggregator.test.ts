import { Aggregator, Instagram } from "@herald/publishers"
import { AyrshareFake } from "@herald/publishers/testing/aggregator"
import { InstagramFake } from "@herald/publishers/testing/instagram"
import { Duration } from "effect"
import S3rver from "s3rver"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeFixtures, tempDir } from "../media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { adminOf, connectThroughConsent, setEnvironment, settledReceipt, syncedMetrics } from "./NetworkTest.js"

/**
 * Instagram through the aggregator (Ayrshare), end to end through the reference server: an
 * account connected on the admin API with Ayrshare's keys (route aggregator_login), its
 * capabilities on GET /social-accounts and GET /posting-rules (first comment and people tags),
 * a photo uploaded with people tags confirmed through Ayrshare (an unknown handle refused before
 * the photo is stored), a post with a first comment and the tagged photo published by the
 * workers through the fake, its receipt and metrics, a takedown refused (Ayrshare deletes no published Instagram post); and a direct Instagram Login
 * account beside it that still refuses both, naming the account.
 */
const apiKey = "AYR-APP-TEST-API-KEY"
const profileKey = "AYR-APP-TEST-PROFILE"
const clientId = "9876543210987654"
const clientSecret = "instagram-test-secret"

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true"

type Account = { id: string; platform: string; route: string; username: string; status: string }

describe("Instagram through the aggregator (fake Ayrshare on loopback, media in a bucket)", () => {
  let ayrshare: AyrshareFake
  let instagram: InstagramFake
  let s3: S3rver
  let herald: TestHerald
  let restore: () => void
  const fixtures = makeFixtures()

  beforeAll(async () => {
    ayrshare = await new AyrshareFake({
      apiKey,
      profiles: { [profileKey]: { username: "acme.studio", instagramId: "17841400000000007" } },
      knownHandles: ["ana.lopez"]
    }).start()
    instagram = await new InstagramFake({ clientId, clientSecret }).start()
    s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: tempDir("herald-s3rver-"), configureBuckets: [{ name: "herald-media" }] })
    const { port } = await s3.run()
    restore = setEnvironment({
      HERALD_AYRSHARE_API_URL: ayrshare.apiUrl,
      HERALD_INSTAGRAM_API_URL: instagram.url,
      HERALD_INSTAGRAM_AUTH_URL: instagram.url,
      HERALD_INSTAGRAM_CLIENT_ID: clientId,
      HERALD_INSTAGRAM_CLIENT_SECRET: clientSecret,
      HERALD_S3_BUCKET: "herald-media",
      HERALD_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      HERALD_S3_FORCE_PATH_STYLE: "true",
      HERALD_S3_ACCESS_KEY_ID: "S3RVER",
      HERALD_S3_SECRET_ACCESS_KEY: "S3RVER"
    })
    herald = await startHerald({
      workers: true,
      directRoutes: [Aggregator.instagramAggregatorRoute, Aggregator.instagramAggregatorLoginRoute, Instagram.instagramDirectRoute],
      // The receipts are polled more often than 60 requests a minute allow.
      humanKeyRateLimit: 5000,
      metrics: { metricsSchedule: { firstAfter: Duration.zero, every: Duration.hours(1), lastAfter: Duration.days(30) }, metricsPollInterval: Duration.millis(50) }
    })
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await ayrshare?.stop()
    await instagram?.stop()
    await s3?.close()
    restore?.()
  })

  const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => adminOf(herald)(path, init)
  const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })

  const connectAggregator = async (route: "aggregator" | "aggregator_login") => {
    const reply = await admin("/accounts", { method: "POST", json: { platform: "instagram", username: "acme.studio", route, api_key: apiKey, profile_key: profileKey } })
    const text = await reply.text()
    expect(reply.status, text).toBe(201)
    // The keys are never echoed.
    expect(text).not.toContain(apiKey)
    expect(text).not.toContain(profileKey)
    return JSON.parse(text) as Account
  }

  const upload = async (name: string, tags: ReadonlyArray<string> = []) => {
    const form = new FormData()
    form.set("file", new Blob([fixtures.jpeg], { type: "image/jpeg" }), name)
    for (const tag of tags) form.append("people_tags", tag)
    return herald.call("/api/v1/media", { method: "POST", token: herald.credentials.human_key, body: form })
  }

  const create = (account: Account, body: Record<string, unknown>) => api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })

  it("refuses aggregator routes without the keys, or with a username the profile does not link, naming the field", async () => {
    const noKeys = await admin("/accounts", { method: "POST", json: { platform: "instagram", username: "acme.studio", route: "aggregator" } })
    expect(noKeys.status).toBe(400)
    expect(JSON.stringify(await json(noKeys))).toContain("api_key")
    const tooLong = `${apiKey}-${"x".repeat(300)}`
    const long = await admin("/accounts", { method: "POST", json: { platform: "instagram", username: "acme.studio", route: "aggregator", api_key: tooLong } })
    expect(long.status).toBe(400)
    const longBody = JSON.stringify(await json(long))
    expect(longBody).toContain("api_key")
    expect(longBody).not.toContain(apiKey)
    const stray = await admin("/accounts", { method: "POST", json: { platform: "instagram", username: "acme.sim", route: "simulator", profile_key: profileKey } })
    expect(stray.status).toBe(400)
    expect(JSON.stringify(await json(stray))).toContain("profile_key")
    const wrong = await admin("/accounts", { method: "POST", json: { platform: "instagram", username: "someone.else", route: "aggregator", api_key: apiKey, profile_key: profileKey } })
    expect(wrong.status).toBe(400)
    expect(await json(wrong)).toMatchObject({ code: "connection_refused", violations: [{ field: "username" }] })
  })

  it("connects with Ayrshare's keys; the login variant advertises first comments and people tags, the plain route first comments only", async () => {
    const login = await connectAggregator("aggregator_login")
    const plain = await connectAggregator("aggregator")
    expect(login).toMatchObject({ route: "aggregator_login", username: "acme.studio", status: "active" })
    const rows = (await json(await api("/social-accounts"))).data
    expect(rows.find((row: { id: string }) => row.id === login.id)).toMatchObject({ can: { first_comment: true, people_tags: true } })
    expect(rows.find((row: { id: string }) => row.id === plain.id)).toMatchObject({ can: { first_comment: true, people_tags: false } })
    const rules = (await json(await api(`/posting-rules?account_ids=${login.id}`))).data[0]
    const keys = rules.options.map((option: { key: string }) => option.key)
    expect(keys).toContain("first_comment")
    for (const key of ["is_paid_partnership", "branded_content_sponsors"]) expect(keys).not.toContain(key)
  })

  it("posts with a first comment and a tagged photo, with a receipt and metrics, a takedown refused; the direct login still refuses both, naming the account", async () => {
    const login = await connectAggregator("aggregator_login")

    // The demo project's simulated Instagram account would confirm handles itself: set aside, so Ayrshare does.
    for (const account of (await json(await admin("/accounts"))).data as Array<Account>) {
      if (account.platform === "instagram" && account.route === "simulator") {
        expect((await admin(`/accounts/${account.id}`, { method: "PATCH", json: { status: "disconnected" } })).status).toBe(200)
      }
    }
    // An unknown handle is refused before the photo is stored.
    const unknown = await upload("tagged.jpg", ["ana.lopez", "nobody.here"])
    expect(unknown.status).toBe(422)
    expect(await json(unknown)).toMatchObject({ code: "people_tags_unconfirmed", unknown: ["nobody.here"] })
    const tagged = await upload("tagged.jpg", ["@ana.lopez"])
    expect(tagged.status).toBe(200)
    const photo = (await json(tagged)).id as string

    const created = await create(login, { caption: "Launch day", media_ids: [photo], platform_configurations: { instagram: { first_comment: "Link in bio #launch" } } })
    expect(created.status, JSON.stringify(await created.clone().json())).toBe(201)
    const receipt = await settledReceipt(api, (await json(created)).id)
    expect(receipt.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(/^https:\/\/www\.instagram\.com\/p\//) })
    const sent = ayrshare.posts.get(receipt.data[0].platform_post_id)!
    expect(sent.body).toMatchObject({ post: "Launch day", platforms: ["instagram"], instagramOptions: { userTags: [{ username: "ana.lopez", x: 0.5, y: 0.5 }] } })
    expect(String((sent.body.mediaUrls as Array<string>)[0])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/herald-media\//)
    expect(sent.comments).toEqual(["Link in bio #launch"])
    expect(sent.profileKey).toBe(profileKey)

    const [metrics] = await syncedMetrics(api, receipt.post_id)
    expect(metrics).toMatchObject({ reach: 40, views: 55, likes: 7, comments: 2, shares: 3, saves: 1 })

    // Ayrshare cannot delete a published Instagram post: the takedown is refused, saying where to remove it.
    const takedown = await api(`/post-results/${receipt.data[0].id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(409)
    expect(await json(takedown)).toMatchObject({ code: "takedown_unsupported", error: expect.stringContaining("in the instagram app") })
    expect(ayrshare.posts.has(receipt.data[0].platform_post_id)).toBe(true)

    // A direct Instagram Login account refuses both, naming the account.
    const direct = await connectThroughConsent(herald, "instagram", instagram) as Account
    const comment = await create(direct, { caption: "Not here", media_ids: [photo], platform_configurations: { instagram: { first_comment: "first!" } } })
    expect(comment.status).toBe(400)
    const commentBody = JSON.stringify(await json(comment))
    expect(commentBody).toContain("first_comment")
    expect(commentBody).toContain(`instagram:${direct.username}`)
    const tags = await create(direct, { caption: "Not here", media_ids: [photo] })
    expect(tags.status).toBe(400)
    const tagsBody = JSON.stringify(await json(tags))
    expect(tagsBody).toContain("media_ids[0]")
    expect(tagsBody).toContain(`instagram:${direct.username}`)
  }, 120_000)
})
