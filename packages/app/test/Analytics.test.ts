import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"
import { json, startHerald, type TestHerald } from "./TestHerald.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Synced as soon as published, then every hour: the sync runs in the test's time, not the default's 15 minutes. */
const metrics = {
  metricsSchedule: { firstAfter: Duration.zero, every: Duration.hours(1), lastAfter: Duration.days(30) },
  metricsPollInterval: Duration.millis(50)
}

const analyticsSuite = (database: "embedded" | "PostgreSQL") => () => {
  let herald: TestHerald
  let dropSchema = (): Promise<unknown> => Promise.resolve()
  let otherKey = ""
  let postId = ""

  const get = (path: string, key = herald.credentials.human_key) => herald.call(`/api/v1${path}`, { token: key })

  beforeAll(async () => {
    const schema = database === "PostgreSQL" ? await throwawaySchema("herald_analytics") : undefined
    if (schema !== undefined) dropSchema = schema.drop
    herald = await startHerald({ metrics, ...(schema === undefined ? {} : { databaseUrl: schema.url }) })
    const admin = (path: string, body: unknown) =>
      herald.call(`/admin/v1${path}`, { method: "POST", token: herald.credentials.admin_token, json: body })
    const other = await json(await admin("/projects", { name: "Other" }))
    otherKey = (await json(await admin(`/projects/${other.id}/keys`, { kind: "human", scopes: ["posts:read"] }))).key
    const created = await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.human_key,
      json: { caption: "Numbers, please", social_accounts: ["x:herald_demo", "bluesky:herald_demo", "linkedin:herald_demo"] }
    })
    expect(created.status).toBe(201)
    postId = (await json(created)).id
    // Published by the dispatcher, then synced by the metrics worker.
    const deadline = Date.now() + 30_000
    for (;;) {
      const reply = await json(await get(`/metrics?post_id=${postId}`))
      if (reply.data?.length === 3) break
      if (Date.now() > deadline) throw new Error(`never synced: ${JSON.stringify(reply)}`)
      await sleep(100)
    }
  }, 90_000)
  afterAll(async () => {
    await herald?.close()
    await dropSchema()
  })

  it("GET /metrics: one row per delivery with the contract's metrics, null where the platform reports none, the live URL and when it was synced", async () => {
    const reply = await json(await get(`/metrics?post_id=${postId}`))
    expect(reply.post_id).toBe(postId)
    const byPlatform = Object.fromEntries(reply.data.map((row: { platform: string }) => [row.platform, row]))
    expect(Object.keys(byPlatform).sort()).toEqual(["bluesky", "linkedin", "x"])
    for (const row of reply.data) {
      expect(row).toMatchObject({ format: "feed", unreportable: null, username: "herald_demo" })
      expect(row.url).toMatch(/^https:\/\//)
      expect(Number.isNaN(Date.parse(row.synced_at))).toBe(false)
      expect(row.likes).toBeGreaterThan(0)
      expect(row.engagement).toBe([row.likes, row.comments, row.shares, row.saves].reduce((sum: number, v: number | null) => sum + (v ?? 0), 0))
    }
    // bluesky reports no views, x and linkedin no saves: null, never 0.
    expect(byPlatform.bluesky.views).toBeNull()
    expect(byPlatform.x.saves).toBeNull()
    expect(byPlatform.linkedin.reach).toBeGreaterThan(0)
  })

  it("GET /metrics: 404 for a post of another project, 400 naming a malformed post_id", async () => {
    const other = await get(`/metrics?post_id=${postId}`, otherKey)
    expect(other.status).toBe(404)
    expect(await json(other)).toMatchObject({ code: "post_not_found" })
    const bad = await get("/metrics?post_id=nope")
    expect(bad.status).toBe(400)
    expect((await json(bad)).error).toContain("post_id")
  })

  it("GET /metrics/history: each delivery's points oldest first, the last one GET /metrics's numbers; 404 for another project", async () => {
    const latest = (await json(await get(`/metrics?post_id=${postId}`))).data as ReadonlyArray<Record<string, unknown>>
    const reply = await json(await get(`/metrics/history?post_id=${postId}`))
    expect(reply.post_id).toBe(postId)
    expect(reply.data.map((row: { delivery_id: string }) => row.delivery_id).sort()).toEqual(latest.map((row) => row.delivery_id).sort())
    for (const row of reply.data) {
      const now = latest.find((candidate) => candidate.delivery_id === row.delivery_id)!
      expect(row).toMatchObject({ platform: now.platform, username: "herald_demo" })
      expect(row.points.length).toBeGreaterThan(0)
      const times = row.points.map((point: { taken_at: string }) => Date.parse(point.taken_at))
      expect(times).toEqual([...times].sort((a, b) => a - b))
      const last = row.points.at(-1)
      for (const metric of ["views", "likes", "comments", "shares", "reach", "saves", "engagement"]) expect(last[metric]).toBe(now[metric])
      expect(Date.parse(row.synced_at)).toBeGreaterThanOrEqual(Date.parse(last.taken_at))
    }
    const other = await get(`/metrics/history?post_id=${postId}`, otherKey)
    expect(other.status).toBe(404)
    expect(await json(other)).toMatchObject({ code: "post_not_found" })
  })

  it("GET /insights: totals of what went out, per platform, with the coverage invariant and ever_delivered", async () => {
    const reply = await json(await get("/insights"))
    expect(reply).toMatchObject({ since_days: 30, platform: null, format: null, posts: 1, deliveries: 3 })
    expect(reply.coverage).toEqual({ deliveries: 3, with_metrics: 3, unreportable: 0, awaiting: 0, unsupported: 0, ever_delivered: 3 })
    expect(Object.keys(reply.by_platform).sort()).toEqual(["bluesky", "linkedin", "x"])
    const rows = (await json(await get(`/metrics?post_id=${postId}`))).data
    expect(reply.totals.likes).toBe(rows.reduce((sum: number, row: { likes: number }) => sum + row.likes, 0))
    expect(reply.totals.engagement).toBe(rows.reduce((sum: number, row: { engagement: number }) => sum + row.engagement, 0))
    const stories = await json(await get("/insights?format=story&since_days=7"))
    expect(stories.totals).toEqual({ views: 0, likes: 0, comments: 0, shares: 0, reach: 0, saves: 0, engagement: 0 })
    expect(stories.coverage).toMatchObject({ deliveries: 0, ever_delivered: 3 })
    const x = await json(await get("/insights?platform=x"))
    expect(x).toMatchObject({ platform: "x", deliveries: 1, coverage: { with_metrics: 1, ever_delivered: 3 } })
    expect(Object.keys(x.by_platform)).toEqual(["x"])
    // Another project sees nothing of it, and knows nothing ever went out.
    expect((await json(await get("/insights", otherKey))).coverage).toMatchObject({ deliveries: 0, ever_delivered: 0 })
  })

  it("GET /top-posts and GET /best-times answer per the contract", async () => {
    const top = await json(await get("/top-posts?metric=likes&limit=5"))
    expect(top).toMatchObject({ metric: "likes", since_days: 30 })
    expect(top.data).toHaveLength(1)
    expect(top.data[0]).toMatchObject({ post_id: postId, platforms: ["bluesky", "linkedin", "x"], deliveries: 3 })
    expect(top.data[0].value).toBeGreaterThan(0)
    expect((await json(await get("/top-posts"))).metric).toBe("engagement")
    const best = await json(await get("/best-times"))
    expect(best.signal).toBe("thin")
    expect(best.since_days).toBe(90)
    expect(best.slots).toHaveLength(1)
    expect(best.slots[0]).toMatchObject({ weekday: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][new Date().getUTCDay()], samples: 1 })
    expect(best.slots[0].avg_engagement).toBeGreaterThan(0)
    expect(await json(await get("/best-times", otherKey))).toEqual({ signal: "none", since_days: 90, slots: [] })
  })

  it("GET /best-times?account: the account's own slots blended with its platform's, how much is its own; another project's account is refused", async () => {
    const accounts = (await json(await get("/social-accounts"))).data as ReadonlyArray<{ id: string; platform: string }>
    const x = accounts.find((account) => account.platform === "x")!
    const platform = await json(await get("/best-times?platform=x"))
    for (const ref of [x.id, "x:herald_demo"]) {
      const own = await json(await get(`/best-times?account=${encodeURIComponent(ref)}`))
      expect(own).toMatchObject({ since_days: 90, account: x.id, signal: "thin" })
      // One own sample: a third its own, the rest the platform's (whose one post there is this one, so the mean is the same).
      expect(own.slots).toEqual(platform.slots.map((slot: object) => ({ ...slot, own_samples: 1, own_weight: 0.33 })))
    }
    // The contract's reply is unchanged without account.
    expect(Object.keys(platform.slots[0]).sort()).toEqual(["avg_engagement", "hour_utc", "samples", "weekday"])
    expect(platform.account).toBeUndefined()
    for (const [ref, key] of [[x.id, otherKey], ["x:nobody", herald.credentials.human_key]] as const) {
      const refused = await get(`/best-times?account=${encodeURIComponent(ref)}`, key)
      expect(refused.status).toBe(400)
      const body = await json(refused)
      expect(body.code).toBe("validation_failed")
      expect(body.error).toContain("account")
      expect(JSON.stringify(body)).toContain(ref)
    }
  })

  it("every query parameter is validated with the 400 shape of /posts, naming the parameter", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["/insights?since_days=0", "since_days"],
      ["/insights?since_days=366", "since_days"],
      ["/insights?since_days=abc", "since_days"],
      ["/insights?platform=myspace", "platform"],
      ["/insights?format=carousel", "format"],
      ["/top-posts?metric=clicks", "metric"],
      ["/top-posts?limit=51", "limit"],
      ["/top-posts?limit=0", "limit"],
      ["/best-times?since_days=1.5", "since_days"],
      ["/best-times?account=", "account"]
    ]
    const postsShape = await json(await get("/posts?limit=0"))
    for (const [path, field] of cases) {
      const reply = await get(path)
      expect(reply.status, path).toBe(400)
      const body = await json(reply)
      expect(Object.keys(body).sort(), path).toEqual(Object.keys(postsShape).sort())
      expect(body.code, path).toBe(postsShape.code)
      expect(body.error, path).toContain(field)
    }
  })
}

describe("analytics endpoints on the embedded database", analyticsSuite("embedded"))
describe.skipIf(databaseUrl === "")("analytics endpoints on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", analyticsSuite("PostgreSQL"))
