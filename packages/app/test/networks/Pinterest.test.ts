import { Pinterest } from "@herald/publishers"
import { PinterestFake } from "@herald/publishers/testing/pinterest"
import { Duration } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Fixtures, makeFixtures } from "../media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { adminOf, connectThroughConsent, setEnvironment, settledReceipt, syncedMetrics } from "./NetworkTest.js"

/**
 * The acceptance of Pinterest's direct route, end to end through the reference server: an
 * account connected through Herald's OAuth flow on the fake's consent page, its boards read by the
 * connection check and listed by GET /posting-rules, board_ids checked at create against them,
 * pins published by the workers with every option (one pin per board, one receipt row, the others
 * in an info note), a video through Pinterest's media upload, a carousel, retries by category,
 * metrics from pin analytics, a reconnect after a revoked grant, and a takedown of every pin.
 */
const clientId = "1484362"
const clientSecret = "pinterest-test-secret"
const [recipes, travel, drafts, adsOnly] = ["549755885175", "549755885176", "549755885177", "549755885178"]
const pinUrl = /^https:\/\/www\.pinterest\.com\/pin\/\d+\/$/

describe("Pinterest through the direct route (fake Pinterest on loopback)", () => {
  let fake: PinterestFake
  let herald: TestHerald
  let fixtures: Fixtures
  let account: { id: string; username: string; status: string; route: string }
  let restore = () => {}

  beforeAll(async () => {
    fixtures = makeFixtures()
    fake = await new PinterestFake({ clientId, clientSecret, processingReads: 1 }).start()
    fake.analyticsOfOthers = { IMPRESSION: 240, SAVE: 20, PIN_CLICK: 37, OUTBOUND_CLICK: 5, TOTAL_COMMENTS: 3, TOTAL_REACTIONS: 12 }
    restore = setEnvironment({
      HERALD_PINTEREST_API_URL: fake.url,
      HERALD_PINTEREST_AUTH_URL: fake.url,
      HERALD_PINTEREST_CLIENT_ID: clientId,
      HERALD_PINTEREST_CLIENT_SECRET: clientSecret
    })
    herald = await startHerald({
      workers: true,
      // The retried pin goes again at once, not 7.5 to 15 seconds later, nor at the dispatcher's next poll a second on.
      retryBackoff: Duration.millis(100),
      dispatchPollInterval: Duration.millis(100),
      directRoutes: [Pinterest.pinterestDirectRoute],
      // The connection check probes the demo's simulator accounts too: answered at once.
      simulatorLatency: { minMs: 0, maxMs: 0 },
      // The receipts are polled more often than 60 requests a minute allow.
      humanKeyRateLimit: 5000,
      metrics: { metricsSchedule: { firstAfter: Duration.zero, every: Duration.hours(1), lastAfter: Duration.days(30) }, metricsPollInterval: Duration.millis(50) }
    })
  }, 120_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
    restore()
  })

  const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => adminOf(herald)(path, init)
  const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })
  const connect = () => connectThroughConsent(herald, "pinterest", fake)
  const settled = (postId: string) => settledReceipt(api, postId, 60)

  const upload = async (file: Buffer, type: string, name: string, fields: Record<string, string> = {}) => {
    const form = new FormData()
    form.append("file", new Blob([file], { type }), name)
    for (const [key, value] of Object.entries(fields)) form.append(key, value)
    const reply = await api("/media", { method: "POST", body: form })
    expect(reply.status).toBe(200)
    return (await json(reply)).id as string
  }

  const create = (body: Record<string, unknown>) => api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })

  const post = async (body: Record<string, unknown>) => {
    const created = await create(body)
    expect(created.status).toBe(201)
    return (await json(created)).id as string
  }

  const rulesOf = async () => (await json(await api(`/posting-rules?account_ids=${account.id}`))).data[0]

  it("connects through the consent page; the connection check reads the boards, which GET /posting-rules lists with alt_text", async () => {
    account = await connect()
    expect(account).toMatchObject({ status: "active", route: "direct", username: "ada_pins" })
    expect(fake.tokenCalls).toEqual(["authorization_code"])

    const before = await rulesOf()
    expect(before.boards).toBeNull()
    expect(before.options.map((option: { key: string }) => option.key)).toEqual(["caption", "title", "board_ids", "link", "is_ai_generated", "alt_text"])
    expect(before.options.find((option: { key: string }) => option.key === "alt_text")).toMatchObject({ kind: "text", max_length: 500 })

    const checked = await api("/connection-issues", { method: "POST" })
    expect(checked.status).toBe(200)
    expect((await json(checked)).data).toEqual([])
    expect((await rulesOf()).boards).toEqual([
      { id: recipes, name: "Recipes", eligible: true, default: true },
      { id: travel, name: "Travel", eligible: true, default: false },
      { id: drafts, name: "Drafts", eligible: true, default: false },
      { id: adsOnly, name: "Ads only", eligible: false, reason: "an ads-only board holds ad pins only", default: false }
    ])
  })

  it("refuses at create a board that is not the account's, or cannot take a pin, naming the board and the account", async () => {
    const photo = await upload(fixtures.jpeg, "image/jpeg", "photo.jpg")
    const calls = fake.calls.length
    const foreign = await create({ caption: "Elsewhere", media_ids: [photo], platform_configurations: { pinterest: { board_ids: [recipes, "123"] } } })
    expect(foreign.status).toBe(400)
    const foreignError = (await json(foreign)).error as string
    expect(foreignError).toContain("board 123 is not a board of pinterest:ada_pins")
    const ineligible = await create({ caption: "Ads", media_ids: [photo], platform_configurations: { pinterest: { board_ids: [adsOnly] } } })
    expect(ineligible.status).toBe(400)
    expect((await json(ineligible)).error).toContain(`board ${adsOnly} (Ads only) of pinterest:ada_pins cannot take a pin: an ads-only board holds ad pins only`)
    // Checked against the boards as last read: Pinterest was not asked.
    expect(fake.calls.length).toBe(calls)
  })

  it("publishes every option: one pin per board, one receipt row with the first pin's URL and an info note of the others; a takedown deletes every pin", async () => {
    const photo = await upload(fixtures.jpeg, "image/jpeg", "photo.jpg", { alt_text: "A blue square" })
    const receipt = await settled(await post({
      caption: "Blue, in two places",
      media_ids: [photo],
      platform_configurations: {
        pinterest: { title: "Blue square", link: "https://example.com/blue", alt_text: "A very blue square", board_ids: [travel, recipes] }
      }
    }))
    expect(receipt.data).toHaveLength(1)
    const [row] = receipt.data
    const pins = fake.livePins().filter((pin) => pin.body["description"] === "Blue, in two places")
    expect(pins.map((pin) => pin.boardId)).toEqual([travel, recipes])
    expect(row).toMatchObject({
      status: "success",
      retries: 0,
      url: `https://www.pinterest.com/pin/${pins[0]!.id}/`,
      platform_post_id: pins[0]!.id,
      note_kind: "info",
      note: `also pinned to another board (Recipes: https://www.pinterest.com/pin/${pins[1]!.id}/)`
    })
    for (const pin of pins) {
      expect(pin.body).toMatchObject({ title: "Blue square", link: "https://example.com/blue", alt_text: "A very blue square" })
      expect(pin.body["media_source"]).toEqual({ source_type: "image_base64", content_type: "image/jpeg", data: fixtures.jpeg.toString("base64") })
    }

    const takedown = await api(`/post-results/${row.id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(200)
    expect(fake.livePins().map((pin) => pin.id)).not.toContain(pins[0]!.id)
    expect(fake.livePins().map((pin) => pin.id)).not.toContain(pins[1]!.id)
    const after = await json(await api(`/post-results?post_id=${receipt.post_id}`))
    expect(after.data[0]).toMatchObject({ status: "taken_down" })
  }, 60_000)

  it("a video through Pinterest's media upload with its cover frame, to the default board; a carousel with is_ai_generated notes the label left behind", async () => {
    const clip = await upload(fixtures.mp4, "video/mp4", "clip.mp4", { thumbnail_timestamp_ms: "1200" })
    const video = await settled(await post({ caption: "A moving picture", media_ids: [clip] }))
    expect(video.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(pinUrl), note: null })
    const pin = fake.livePins().find((one) => one.id === video.data[0].platform_post_id)!
    const [media] = [...fake.media.values()]
    expect(pin.boardId).toBe(recipes)
    expect(pin.body["media_source"]).toEqual({ source_type: "video_id", media_id: media!.id, cover_image_key_frame_time: 1 })
    expect(media).toMatchObject({ status: "succeeded", bytes: fixtures.mp4.length })

    const first = await upload(fixtures.jpeg, "image/jpeg", "one.jpg")
    const second = await upload(fixtures.png, "image/png", "two.png")
    const carousel = await settled(await post({
      caption: "Two pictures",
      media_ids: [first, second],
      platform_configurations: { pinterest: { is_ai_generated: true, board_ids: [drafts] } }
    }))
    expect(carousel.data[0]).toMatchObject({
      status: "success",
      note_kind: null,
      note: "is_ai_generated left behind: Pinterest's API takes no AI label (Pinterest labels AI images from their metadata)"
    })
    const pinned = fake.livePins().find((one) => one.id === carousel.data[0].platform_post_id)!
    expect(pinned.boardId).toBe(drafts)
    expect(pinned.body["media_source"]).toMatchObject({ source_type: "multiple_image_base64", items: [{ content_type: "image/jpeg" }, { content_type: "image/png" }] })
  }, 60_000)

  it("metrics come from pin analytics: impressions, reactions, comments and saves; reach and shares stay null", async () => {
    const photo = await upload(fixtures.jpeg, "image/jpeg", "photo.jpg")
    const postId = await post({ caption: "Counted", media_ids: [photo] })
    await settled(postId)
    const [metrics] = await syncedMetrics(api, postId)
    expect(metrics).toMatchObject({ views: 240, likes: 12, comments: 3, saves: 20, reach: null, shares: null })
    expect(fake.calls.some((call) => call.includes("/analytics?") && call.includes("metric_types=IMPRESSION"))).toBe(true)
  }, 60_000)

  it("retries by category: a 5xx is tried again and goes out once; a spam refusal and a missing scope fail without a retry", async () => {
    const photo = await upload(fixtures.jpeg, "image/jpeg", "photo.jpg")
    // Aimed at the pin's create: the workers' other calls (metrics, checks) do not take it.
    fake.failNext({ status: 503 }, { only: "POST /v5/pins" })
    const transient = await settled(await post({ caption: "Second time lucky", media_ids: [photo] }))
    expect(transient.data[0]).toMatchObject({ status: "success", retries: 1 })
    expect(transient.data[0].attempts[0]).toMatchObject({ outcome: "failed", error_category: "transient" })
    expect(fake.livePins().filter((pin) => pin.body["description"] === "Second time lucky")).toHaveLength(1)

    fake.failNext({ status: 429, body: { code: 8, message: "Your request was blocked as spam." } }, { only: "POST /v5/pins" })
    const spam = await settled(await post({ caption: "Looks like spam", media_ids: [photo] }))
    expect(spam.data[0]).toMatchObject({ status: "failed", retries: 0, error_category: "content_rejected" })

    fake.revokeScope("pins:write")
    const refused = await settled(await post({ caption: "No permission", media_ids: [photo] }))
    expect(refused.data[0]).toMatchObject({ status: "failed", retries: 0, error_category: "permission_missing" })
  }, 90_000)

  it("a revoked grant needs a reconnect; after it, a retry publishes and the probe reports the connection alive; an expired token is refreshed", async () => {
    const photo = await upload(fixtures.jpeg, "image/jpeg", "photo.jpg")
    fake.revokeGrant()
    const revoked = await settled(await post({ caption: "After the revocation", media_ids: [photo] }))
    expect(revoked.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    const marked = (await json(await admin("/accounts"))).data.find((one: { id: string }) => one.id === account.id)
    expect(marked.status).toBe("needs_reconnect")

    const again = await connect()
    expect(again).toMatchObject({ id: account.id, status: "active" })
    const retried = await api(`/post-results/${revoked.data[0].id}/retry`, { method: "POST" })
    expect(retried.status).toBe(200)
    const afterRetry = await settled(revoked.post_id)
    expect(afterRetry.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(pinUrl) })
    const checked = await json(await api("/connection-issues", { method: "POST" }))
    expect(checked.data).toEqual([])

    // Pinterest refuses the access token (past its 30 days): refreshed with the refresh token, and the pin goes out.
    const refreshes = fake.tokenCalls.filter((grant) => grant === "refresh_token").length
    fake.expireToken()
    const refreshed = await settled(await post({ caption: "After a refresh", media_ids: [photo] }))
    expect(refreshed.data[0]).toMatchObject({ status: "success", retries: 0 })
    expect(fake.tokenCalls.filter((grant) => grant === "refresh_token").length).toBe(refreshes + 1)
  }, 90_000)
})
