import { Tiktok } from "@herald/publishers"
import { TiktokFake } from "@herald/publishers/testing/tiktok"
import { Duration } from "effect"
import S3rver from "s3rver"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Fixtures, makeFixtures, tempDir } from "../media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { settledReceipt, syncedMetrics } from "./NetworkTest.js"

/**
 * The acceptance of TikTok's direct route, end to end through the reference server: accounts
 * connected through Herald's Login Kit flow on the fake's consent page, the creator's
 * creator_info kept as the account's report (its video limit and privacy levels on GET
 * /social-accounts and /posting-rules, refreshed by the connection check, held at create without
 * calling TikTok), a video with every option (FILE_UPLOAD chunks, its cover frame), photos pulled
 * from the media bucket (s3rver on loopback), receipts, retries by category, the takedown TikTok's
 * API cannot do, metrics from the video query, and an unaudited app that posts privately only.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true"

const clientKey = "awtiktoktestclientkey"
const clientSecret = "tiktok-test-secret"
const videoUrl = /^https:\/\/www\.tiktok\.com\/@ada\.lovelace\/video\/(\d{19})$/

let fixtures: Fixtures
let s3: S3rver
let bucketUrl: string

beforeAll(async () => {
  fixtures = makeFixtures()
  s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: tempDir("herald-tiktok-s3-"), configureBuckets: [{ name: "herald-media" }] })
  const { port } = await s3.run()
  bucketUrl = `http://127.0.0.1:${port}`
}, 60_000)

afterAll(async () => {
  await s3?.close()
})

/** A Herald whose TikTok route points at `fake`, media in the bucket, with `audited` as the app's standing. */
const startWith = async (fake: TiktokFake, audited: boolean) => {
  const variables: Record<string, string> = {
    HERALD_TIKTOK_API_URL: fake.url,
    HERALD_TIKTOK_AUTH_URL: fake.url,
    HERALD_TIKTOK_CLIENT_ID: clientKey,
    HERALD_TIKTOK_CLIENT_SECRET: clientSecret,
    HERALD_TIKTOK_AUDITED: String(audited),
    HERALD_S3_BUCKET: "herald-media",
    HERALD_S3_ENDPOINT: bucketUrl,
    HERALD_S3_FORCE_PATH_STYLE: "true",
    HERALD_S3_ACCESS_KEY_ID: "S3RVER",
    HERALD_S3_SECRET_ACCESS_KEY: "S3RVER"
  }
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]))
  Object.assign(process.env, variables)
  try {
    return await startHerald({
      workers: true,
      // The retried publish goes again at once, not 7.5 to 15 seconds later, nor at the dispatcher's next poll a second on.
      retryBackoff: Duration.millis(100),
      dispatchPollInterval: Duration.millis(100),
      directRoutes: [Tiktok.tiktokDirectRoute],
      // The connection check probes the demo's simulator accounts too: answered at once.
      simulatorLatency: { minMs: 0, maxMs: 0 },
      // The receipts are polled more often than 60 requests a minute allow.
      humanKeyRateLimit: 5000,
      metrics: { metricsSchedule: { firstAfter: Duration.zero, every: Duration.hours(1), lastAfter: Duration.days(30) }, metricsPollInterval: Duration.millis(100) }
    })
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

const client = (herald: TestHerald) => {
  const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
    herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, { token: herald.credentials.admin_token, ...init })
  const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })
  return { admin, api }
}

const connect = async (herald: TestHerald, fake: TiktokFake) => {
  const { admin, api } = client(herald)
  const started = await admin("/accounts/oauth", { method: "POST", json: { platform: "tiktok" } })
  expect(started.status).toBe(201)
  const { authorize_url, redirect_uri } = await json(started)
  expect(new URL(authorize_url).searchParams.get("client_key")).toBe(clientKey)
  const callback = await fake.consent(authorize_url)
  expect(`${callback.origin}${callback.pathname}`).toBe(redirect_uri)
  expect((await fetch(callback)).status).toBe(200)
  const rows = (await json(await api("/social-accounts"))).data
  return rows.find((row: { platform: string; route: string }) => row.platform === "tiktok" && row.route === "direct")
}

const upload = async (herald: TestHerald, kind: "jpeg" | "mp4", fields: Record<string, string> = {}) => {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  form.append("file", new Blob([fixtures[kind]], { type: kind === "jpeg" ? "image/jpeg" : "video/mp4" }), `file.${kind === "jpeg" ? "jpg" : "mp4"}`)
  const reply = await client(herald).api("/media", { method: "POST", body: form })
  expect(reply.status).toBe(200)
  return (await json(reply)).id as string
}

const settled = (herald: TestHerald, postId: string) => settledReceipt(client(herald).api, postId)

const create = (herald: TestHerald, account: { id: string }, body: Record<string, unknown>) =>
  client(herald).api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })

const post = async (herald: TestHerald, account: { id: string }, body: Record<string, unknown>) => {
  const created = await create(herald, account, body)
  expect(created.status, await created.clone().text()).toBe(201)
  return (await json(created)).id as string
}

describe("TikTok through the direct route, an audited app (fake TikTok on loopback)", () => {
  let fake: TiktokFake
  let herald: TestHerald

  beforeAll(async () => {
    fake = await new TiktokFake({ clientKey, clientSecret, audited: true, verifiedUrlPrefixes: [`${bucketUrl}/herald-media/`] }).start()
    fake.creator.maxVideoPostDurationSec = 300
    herald = await startWith(fake, true)
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
  })

  it("connects through Login Kit and shows creator_info as the account's limits and accepted privacy levels", async () => {
    const account = await connect(herald, fake)
    expect(account).toMatchObject({
      status: "active",
      username: "ada.lovelace",
      limits: { video_seconds: 300 },
      can: { public_posts: true },
      reported: { options: { privacy_status: { values: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"] } } }
    })
    const rules = (await json(await client(herald).api(`/posting-rules?account_ids=${account.id}`))).data[0]
    expect(rules.limits.video_seconds).toBe(300)
    const keys = rules.options.map((option: { key: string }) => option.key)
    expect(keys).toEqual(["caption", "is_brand_content", "is_organic_brand_content", "is_ai_generated", "privacy_status", "disable_comment", "disable_duet", "disable_stitch"])
    expect(rules.options.find((option: { key: string }) => option.key === "privacy_status").values).toEqual(["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"])
  })

  it("refuses at create what creator_info forbids, from the kept report and without calling TikTok; the check refreshes it", async () => {
    const account = await connect(herald, fake)
    const video = await upload(herald, "mp4")
    const before = fake.calls.length
    const notOffered = await create(herald, account, { caption: "Followers only", media_ids: [video], platform_configurations: { tiktok: { privacy_status: "FOLLOWER_OF_CREATOR" } } })
    expect(notOffered.status).toBe(400)
    const refusal = await json(notOffered)
    expect(refusal.violations).toEqual([expect.objectContaining({ field: "platform_configurations.tiktok.privacy_status", account: "tiktok:ada.lovelace" })])
    expect(fake.calls.length).toBe(before)

    // The creator's limit drops to 1 second and comments go off: the connection check reads creator_info again.
    fake.creator.maxVideoPostDurationSec = 1
    fake.creator.commentDisabled = true
    expect((await client(herald).api("/connection-issues", { method: "POST" })).status).toBe(200)
    const checked = (await json(await client(herald).api("/social-accounts"))).data.find((row: { id: string }) => row.id === account.id)
    expect(checked.limits.video_seconds).toBe(1)
    const tooLong = await json(await create(herald, account, { caption: "Too long now", media_ids: [video], platform_configurations: { tiktok: { privacy_status: "SELF_ONLY" } } }))
    expect(tooLong.violations).toEqual([expect.objectContaining({ field: "media_ids[0]", account: "tiktok:ada.lovelace" })])
    const comments = await json(await create(herald, account, { caption: "Comments on", media_ids: [await upload(herald, "jpeg")], platform_configurations: { tiktok: { privacy_status: "SELF_ONLY", disable_comment: false } } }))
    expect(comments.violations).toEqual([expect.objectContaining({ field: "platform_configurations.tiktok.disable_comment", account: "tiktok:ada.lovelace" })])

    fake.creator.maxVideoPostDurationSec = 300
    fake.creator.commentDisabled = false
    await client(herald).api("/connection-issues", { method: "POST" })
    const restored = (await json(await client(herald).api("/social-accounts"))).data.find((row: { id: string }) => row.id === account.id)
    expect(restored.limits.video_seconds).toBe(300)
  })

  it("publishes a video with every option in chunks, and photos pulled from the bucket; receipts, metrics and a takedown TikTok cannot do", async () => {
    const account = await connect(herald, fake)
    // What TikTok's video query reports of the post when the metrics worker asks (at once, here).
    fake.defaultCounts = { view_count: 1200, like_count: 88, comment_count: 7, share_count: 5 }
    const video = await upload(herald, "mp4", { thumbnail_timestamp_ms: "500" })
    const published = await settled(herald, await post(herald, account, {
      caption: "Launch film #herald",
      media_ids: [video],
      platform_configurations: {
        tiktok: {
          privacy_status: "PUBLIC_TO_EVERYONE",
          is_brand_content: true,
          is_organic_brand_content: true,
          is_ai_generated: true,
          disable_comment: true,
          disable_duet: true,
          disable_stitch: true
        }
      }
    }))
    const row = published.data[0]
    expect(row).toMatchObject({ status: "success", retries: 0, url: expect.stringMatching(videoUrl) })
    const sent = fake.find(row.platform_post_id)!
    // The 19-digit post id TikTok writes as a bare JSON number arrives whole.
    expect(row.platform_post_id).toBe(sent.postId)
    expect(row.url).toBe(`https://www.tiktok.com/@ada.lovelace/video/${sent.postId}`)
    expect(sent.postInfo).toEqual({
      title: "Launch film #herald",
      privacy_level: "PUBLIC_TO_EVERYONE",
      disable_comment: true,
      brand_content_toggle: true,
      brand_organic_toggle: true,
      disable_duet: true,
      disable_stitch: true,
      video_cover_timestamp_ms: 500,
      is_aigc: true
    })
    expect(sent.sourceInfo).toMatchObject({ source: "FILE_UPLOAD", video_size: fixtures.mp4.length, chunk_size: fixtures.mp4.length, total_chunk_count: 1 })
    expect(Buffer.compare(sent.media[0]!, fixtures.mp4)).toBe(0)

    const photos = await settled(herald, await post(herald, account, {
      caption: "Two stills\nfrom the launch",
      media_ids: [await upload(herald, "jpeg"), await upload(herald, "jpeg")],
      platform_configurations: { tiktok: { privacy_status: "SELF_ONLY", is_organic_brand_content: true } }
    }))
    // A private post gets no public id: the receipt links the profile and says so.
    expect(photos.data[0]).toMatchObject({ status: "success", url: "https://www.tiktok.com/@ada.lovelace", note_kind: "info" })
    const pulled = fake.find(photos.data[0].platform_post_id)!
    expect(pulled).toMatchObject({ kind: "photo", postInfo: { title: "Two stills", description: "Two stills\nfrom the launch", privacy_level: "SELF_ONLY", brand_organic_toggle: true } })
    expect(pulled.media.map((bytes) => Buffer.compare(bytes, fixtures.jpeg))).toEqual([0, 0])

    const [metrics] = await syncedMetrics(client(herald).api, published.post_id)
    expect(metrics).toMatchObject({ platform: "tiktok", views: 1200, likes: 88, comments: 7, shares: 5, saves: null, reach: null })

    const takedown = await client(herald).api(`/post-results/${row.id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(409)
    expect(await json(takedown)).toMatchObject({ code: "takedown_unsupported", error: expect.stringContaining("in the tiktok app") })
    expect(fake.find(row.platform_post_id)?.status).toBe("PUBLISH_COMPLETE")
    const unchanged = (await json(await client(herald).api(`/post-results?post_id=${published.post_id}`))).data[0]
    expect(unchanged).toMatchObject({ id: row.id, status: "success" })
  }, 120_000)

  it("retries what is passing and fails what TikTok refused, by category", async () => {
    const account = await connect(herald, fake)
    const video = await upload(herald, "mp4")
    // TikTok failed on its side (fail_reason internal): the publish is tried again with a new init.
    fake.failNextPublish = "internal"
    const retried = await settled(herald, await post(herald, account, { caption: "Second time lucky", media_ids: [video], platform_configurations: { tiktok: { privacy_status: "MUTUAL_FOLLOW_FRIENDS" } } }))
    expect(retried.data[0]).toMatchObject({ status: "success", retries: 1 })
    // TikTok refused the text: not retried.
    fake.failNextPublish = "spam_risk_text"
    const refused = await settled(herald, await post(herald, account, { caption: "Spammy words", media_ids: [video], platform_configurations: { tiktok: { privacy_status: "SELF_ONLY" } } }))
    expect(refused.data[0]).toMatchObject({ status: "failed", retries: 0, error_category: "content_rejected" })
    // The grant is gone: auth_expired, and the account needs a reconnect.
    fake.revokeGrant()
    const revoked = await settled(herald, await post(herald, account, { caption: "After revoking", media_ids: [video], platform_configurations: { tiktok: { privacy_status: "SELF_ONLY" } } }))
    expect(revoked.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    const marked = (await json(await client(herald).api("/social-accounts"))).data.find((row: { id: string }) => row.id === account.id)
    expect(marked.status).toBe("needs_reconnect")
    expect(await connect(herald, fake)).toMatchObject({ id: account.id, status: "active" })
  }, 120_000)
})

describe("TikTok through the direct route, an unaudited app", () => {
  let fake: TiktokFake
  let herald: TestHerald

  beforeAll(async () => {
    fake = await new TiktokFake({ clientKey, clientSecret, audited: false, verifiedUrlPrefixes: [`${bucketUrl}/herald-media/`] }).start()
    herald = await startWith(fake, false)
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
  })

  it("shows that the account posts privately only, refuses public posts at create, and posts SELF_ONLY without being told", async () => {
    const account = await connect(herald, fake)
    expect(account.can.public_posts).toBe(false)
    expect(account.reported.public_posts_reason).toContain("HERALD_TIKTOK_AUDITED")
    const rules = (await json(await client(herald).api(`/posting-rules?account_ids=${account.id}`))).data[0]
    expect(rules.options.find((option: { key: string }) => option.key === "privacy_status")).toMatchObject({ values: ["SELF_ONLY"], default: "SELF_ONLY" })

    const video = await upload(herald, "mp4")
    const refused = await create(herald, account, { caption: "For everyone", media_ids: [video], platform_configurations: { tiktok: { privacy_status: "PUBLIC_TO_EVERYONE" } } })
    expect(refused.status).toBe(400)
    const body = await json(refused)
    expect(body.violations).toEqual([expect.objectContaining({ field: "platform_configurations.tiktok.privacy_status", account: "tiktok:ada.lovelace" })])
    expect(body.error).toContain("has not passed TikTok's audit")

    const published = await settled(herald, await post(herald, account, { caption: "Just for me", media_ids: [video] }))
    expect(published.data[0]).toMatchObject({ status: "success", url: "https://www.tiktok.com/@ada.lovelace" })
    expect(fake.find(published.data[0].platform_post_id)?.postInfo["privacy_level"]).toBe("SELF_ONLY")
  }, 60_000)
})
