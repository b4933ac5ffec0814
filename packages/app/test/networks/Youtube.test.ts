import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Kit, Youtube } from "@herald/publishers"
import { YoutubeFake } from "@herald/publishers/testing/youtube"
import { DateTime, Duration } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, startHerald, type TestHerald } from "../TestHerald.js"

/**
 * The acceptance of YouTube's direct route, end to end through the reference server: an account
 * connected through Herald's OAuth flow on the fake's consent page, a video uploaded through
 * POST /media (measured by ffprobe) and published by the workers with every option (its
 * thumbnail taken by ffmpeg at thumbnail_timestamp_ms), a lost answer to the last chunk
 * reconciled by probing the upload session (one video, no second upload), retries by category,
 * metrics, the probe, a revoked grant (needs_reconnect), Google's quotaExceeded and Herald's own
 * quota refusal waiting as rate_limited until midnight Pacific, and a takedown.
 */
const clientId = "123456789012-herald.apps.googleusercontent.com"
const clientSecret = "GOCSPX-youtube-test-secret"
const shortUrl = /^https:\/\/www\.youtube\.com\/shorts\/[A-Za-z0-9_-]{11}$/

const makeClip = () => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-youtube-app-"))
  const file = Path.join(dir, "clip.mp4")
  execFileSync("ffmpeg", [
    "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=2:size=360x640:rate=10,noise=alls=60:allf=t",
    "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", "-movflags", "+faststart", file
  ])
  const bytes = Fs.readFileSync(file)
  Fs.rmSync(dir, { recursive: true, force: true })
  return bytes
}

describe("YouTube through the direct route (fake Google on loopback)", () => {
  let fake: YoutubeFake
  let herald: TestHerald
  const clip = makeClip()
  const saved: Record<string, string | undefined> = {}

  beforeAll(async () => {
    fake = await new YoutubeFake({ clientId, clientSecret }).start()
    const variables = {
      HERALD_YOUTUBE_API_URL: fake.url,
      HERALD_YOUTUBE_AUTH_URL: fake.url,
      HERALD_YOUTUBE_TOKEN_URL: `${fake.url}/token`,
      HERALD_YOUTUBE_ANALYTICS_URL: fake.url,
      HERALD_YOUTUBE_CLIENT_ID: clientId,
      HERALD_YOUTUBE_CLIENT_SECRET: clientSecret,
      HERALD_YOUTUBE_UPLOAD_CHUNK_BYTES: String(256 * 1024)
    }
    for (const [name, value] of Object.entries(variables)) {
      saved[name] = process.env[name]
      process.env[name] = value
    }
    herald = await startHerald({
      workers: true,
      directRoutes: [Youtube.youtubeDirectRoute],
      // A lost answer to a chunk is given up on after a second, not the upload's 5 minutes (an
      // answered upload on loopback beats it; reads and publishes keep theirs), and looked up at
      // once, not 5 seconds later.
      callDeadlines: { ...Kit.deadlines, upload: Duration.seconds(1) },
      recheckMin: Duration.millis(100),
      dispatchPollInterval: Duration.millis(100),
      // The connection check probes the demo's simulator accounts too: answered at once.
      simulatorLatency: { minMs: 0, maxMs: 0 },
      // The receipts are polled more often than 60 requests a minute allow.
      humanKeyRateLimit: 5000,
      metrics: { metricsSchedule: { firstAfter: Duration.zero, every: Duration.hours(1), lastAfter: Duration.days(30) }, metricsPollInterval: Duration.millis(100) }
    })
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
    herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, { token: herald.credentials.admin_token, ...init })
  const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })

  const connect = async () => {
    const started = await admin("/accounts/oauth", { method: "POST", json: { platform: "youtube" } })
    expect(started.status).toBe(201)
    const { authorize_url, redirect_uri } = await json(started)
    const consent = new URL(authorize_url)
    expect(consent.searchParams.get("access_type")).toBe("offline")
    expect(consent.searchParams.get("prompt")).toBe("consent")
    const callback = await fake.consent(authorize_url)
    expect(`${callback.origin}${callback.pathname}`).toBe(redirect_uri)
    const page = await fetch(callback)
    expect(page.status).toBe(200)
    const accounts = await json(await admin("/accounts"))
    return accounts.data.find((account: { platform: string; route: string }) => account.platform === "youtube" && account.route === "direct")
  }

  const upload = async (thumbnailMs?: number) => {
    const form = new FormData()
    form.set("file", new Blob([clip], { type: "video/mp4" }), "clip.mp4")
    if (thumbnailMs !== undefined) form.set("thumbnail_timestamp_ms", String(thumbnailMs))
    const reply = await api("/media", { method: "POST", body: form })
    expect(reply.status).toBe(200)
    return (await json(reply)).id as string
  }

  const receipt = async (postId: string) => json(await api(`/post-results?post_id=${postId}`))

  // Polled every 50 ms, for 40 s at most.
  const until = async <A>(what: string, read: () => Promise<A>, done: (value: A) => boolean) => {
    const deadline = Date.now() + 40_000
    for (;;) {
      const value = await read()
      if (done(value)) return value
      if (Date.now() > deadline) throw new Error(`${what} did not happen`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  const settled = (postId: string) =>
    until(`post ${postId} settled`, () => receipt(postId), (found) =>
      found.data.every((row: { status: string }) => !["queued", "publishing", "unknown"].includes(row.status)))

  const post = async (account: { id: string }, body: Record<string, unknown>) => {
    const created = await api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })
    expect(created.status, JSON.stringify(await created.clone().json())).toBe(201)
    return (await json(created)).id as string
  }

  it("lists privacy_status and category_id beside the contract's options in GET /posting-rules, and refuses a title past 100 characters at create", async () => {
    const account = await connect()
    const rules = JSON.stringify(await json(await api(`/posting-rules?account_ids=${account.id}`)))
    for (const key of ["has_paid_product_placement", "contains_synthetic_media", "privacy_status", "category_id"]) expect(rules).toContain(key)
    const refused = await api("/posts", { method: "POST", json: { social_accounts: [account.id], caption: "t".repeat(101), media_ids: [await upload()] } })
    expect(refused.status).toBe(400)
    expect(JSON.stringify(await json(refused))).toContain("youtube:adalovelace")
  })

  it("connects, publishes with every option and a thumbnail, reconciles a lost answer by probing, retries, measures, and takes down", async () => {
    const account = await connect()
    expect(account).toMatchObject({ status: "active", route: "direct", username: "adalovelace" })
    fake.newVideoStatistics = { viewCount: 321, likeCount: 12, commentCount: 3, shares: 2 }

    const first = await settled(await post(account, {
      caption: "Launch day\nA two-second clip from Herald.",
      media_ids: [await upload(1500)],
      platform_configurations: {
        youtube: { privacy_status: "unlisted", category_id: "28", has_paid_product_placement: true, contains_synthetic_media: true }
      }
    }))
    expect(first.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(shortUrl), note_kind: "info" })
    const [live] = fake.liveVideos()
    expect(live?.metadata).toEqual({
      snippet: { title: "Launch day", description: "Launch day\nA two-second clip from Herald.", categoryId: "28" },
      status: { privacyStatus: "unlisted", containsSyntheticMedia: true },
      paidProductPlacementDetails: { hasPaidProductPlacement: true }
    })
    expect(live?.bytes.equals(clip)).toBe(true)
    // ffmpeg took the frame: a JPEG.
    expect([live?.thumbnail?.[0], live?.thumbnail?.[1]]).toEqual([0xff, 0xd8])

    // The answer to the last chunk is lost: the outcome is unknown, the dispatcher probes the
    // recorded session and finds the video. One upload session, one video.
    const opens = () => fake.calls.filter((call) => call.startsWith("POST /upload/youtube/v3/videos")).length
    const before = { opens: opens(), videos: fake.videos.length }
    fake.hangNext()
    const lostId = await post(account, { caption: "Answer lost on the last chunk", media_ids: [await upload()] })
    const lost = await until("the lost answer reconciled", () => receipt(lostId), (found) => found.data[0].status === "success")
    expect(lost.data[0].attempts.map((attempt: { outcome: string }) => attempt.outcome)).toContain("reconciled")
    expect(opens()).toBe(before.opens + 1)
    expect(fake.videos.length).toBe(before.videos + 1)

    // A 503 opening the session is transient: tried again, then published.
    fake.failNext({ status: 503, call: "POST /upload/youtube/v3/videos" })
    const retriedId = await post(account, { caption: "After a hiccup", media_ids: [await upload()] })
    const retrying = await until("the 503 recorded", () => receipt(retriedId), (found) => found.data[0].error_category !== null || found.data[0].status === "success")
    expect(retrying.data[0]).toMatchObject({ status: "queued", error_category: "transient", error: { code: "backendError" } })
    expect(Date.parse(retrying.data[0].next_attempt_at)).toBeGreaterThan(Date.now())

    // Metrics from the Data API's statistics and the Analytics API's shares.
    const metrics = await until("metrics synced", async () => json(await api(`/metrics?post_id=${first.post_id}`)), (found) =>
      found.data?.some((row: { views: number | null }) => row.views === 321) === true)
    expect(metrics.data[0]).toMatchObject({ views: 321, likes: 12, comments: 3, shares: 2, reach: null, saves: null })

    // The probe (POST /connection-issues runs it now): alive, nothing open.
    const checked = await json(await api("/connection-issues", { method: "POST" }))
    expect(checked.data.filter((issue: { account_id?: string }) => issue.account_id === account.id)).toEqual([])

    const takedown = await api(`/post-results/${first.data[0].id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(200)
    expect(fake.liveVideos().map((one) => one.id)).not.toContain(first.data[0].platform_post_id)
  }, 120_000)

  it("a revoked grant needs a reconnect; a day past the quota waits as rate_limited until midnight Pacific, refused before calling Google", async () => {
    const account = await connect()
    fake.revokeGrants()
    const revoked = await settled(await post(account, { caption: "Revoked", media_ids: [await upload()] }))
    expect(revoked.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    const marked = (await json(await admin("/accounts"))).data.find((one: { id: string }) => one.id === account.id)
    expect(marked.status).toBe("needs_reconnect")
    expect((await connect()).status).toBe("active")

    // Other software spent the project's quota: Google answers quotaExceeded.
    fake.quotaUsed = 10_000
    const exceededId = await post(account, { caption: "Past the quota", media_ids: [await upload()] })
    const waiting = await until("quotaExceeded recorded", () => receipt(exceededId), (found) => found.data[0].error_category !== null)
    const midnightPacific = DateTime.toEpochMillis(Youtube.quotaDay(DateTime.unsafeNow()).resetAt)
    expect(waiting.data[0]).toMatchObject({ status: "queued", error_category: "rate_limited", error: { code: "quotaExceeded" } })
    expect(Math.abs(Date.parse(waiting.data[0].next_attempt_at) - midnightPacific)).toBeLessThan(5 * 60_000)

    // The day is spent for Herald too: the next upload waits without calling Google.
    const calls = fake.calls.length
    const earlyId = await post(account, { caption: "Refused early", media_ids: [await upload()] })
    const early = await until("the quota refusal recorded", () => receipt(earlyId), (found) => found.data[0].error_category !== null)
    expect(early.data[0]).toMatchObject({ status: "queued", error_category: "rate_limited", error: { code: "youtube_quota_exhausted" } })
    expect(early.data[0].error.message).toContain("Pacific time")
    expect(fake.calls.slice(calls).filter((call) => call.startsWith("POST /upload"))).toEqual([])
  }, 120_000)
})
