import * as Fs from "node:fs"
import { ValidationFailed } from "@herald/core"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createHerald, type Herald } from "../src/Sdk.js"

let herald: Herald
let humanKey: string
const dataDir = embeddedDataDir("herald-sdk-")

beforeAll(async () => {
  herald = await createHerald({ publicUrl: "http://herald.test", dataDir, demo: true })
  humanKey = herald.demoCredentials!.human_key
}, 60_000)
afterAll(async () => {
  await herald?.close()
  Fs.rmSync(dataDir, { recursive: true, force: true })
})

/** The rejection of an SDK call, which must be the core's ValidationFailed. */
const refused = async (call: Promise<unknown>) => {
  const error = await call.then(() => null, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(ValidationFailed)
  return (error as ValidationFailed).violations
}

describe("createHerald(): text that cannot be stored", () => {
  it("posts.create refuses a NUL or a lone surrogate with ValidationFailed naming the field, and stores nothing", async () => {
    expect(await refused(herald.posts.create(humanKey, { caption: "sdk \u0000", social_accounts: ["x:herald_demo"], is_draft: true })))
      .toEqual([{ field: "caption", account: null, message: "contains a NUL character (U+0000)" }])
    expect(await refused(herald.posts.create(humanKey, {
      caption: "sdk fine",
      social_accounts: ["x:herald_demo"],
      is_draft: true,
      platform_configurations: { x: { thread: ["\ud800"] } }
    }))).toEqual([{ field: "platform_configurations.x.thread[0]", account: null, message: "contains an unpaired surrogate (U+D800)" }])
    expect((await herald.posts.list(humanKey)).data).toEqual([])
    // A clean call still goes through.
    const created = await herald.posts.create(humanKey, { caption: "sdk fine", social_accounts: ["x:herald_demo"], is_draft: true })
    expect(created.status).toBe("draft")
  })

  it("posts.approve and posts.list check their arguments the same way", async () => {
    expect(await refused(herald.posts.approve(humanKey, "\u0000", { decision: "approve" })))
      .toEqual([{ field: "post_id", account: null, message: "contains a NUL character (U+0000)" }])
    expect(await refused(herald.posts.approve(humanKey, "00000000-0000-4000-8000-000000000000", { decision: "reject", reason: "\udc00" })))
      .toEqual([{ field: "reason", account: null, message: "contains an unpaired surrogate (U+DC00)" }])
    expect(await refused(herald.posts.list(humanKey, { status: ["\u0000" as never] })))
      .toEqual([{ field: "status[0]", account: null, message: "contains a NUL character (U+0000)" }])
  })

  it("the fetch handler answers the REST check", async () => {
    const reply = await herald.handler(new Request("http://herald.test/api/v1/posts", {
      method: "POST",
      headers: { authorization: `Bearer ${humanKey}`, "content-type": "application/json" },
      body: JSON.stringify({ caption: "\u0000", social_accounts: ["x:herald_demo"] })
    }))
    expect(reply.status).toBe(400)
    expect(((await reply.json()) as { violations: unknown }).violations).toEqual([{ field: "caption", account: null, message: "contains a NUL character (U+0000)" }])
  })
})

describe("createHerald(): accounts", () => {
  it("startOAuth and login refuse, naming why, a route or platform not configured; a bad project id names the field", async () => {
    const projectId = herald.demoCredentials!.project_id
    // Instagram's Facebook Login route reads the Facebook app's settings.
    await expect(herald.accounts.startOAuth(projectId, "instagram", { route: "facebook_login" })).rejects
      .toMatchObject({ _tag: "PlatformNotConfigured", platform: "instagram", variables: ["HERALD_FACEBOOK_CLIENT_ID", "HERALD_FACEBOOK_CLIENT_SECRET"] })
    await expect(herald.accounts.startOAuth(projectId, "pinterest")).rejects.toMatchObject({ _tag: "PlatformNotConfigured", platform: "pinterest" })
    const login = herald.accounts.login(projectId, "pinterest", { identifier: "acme", password: "app-password-1" })
    await expect(login).rejects.toMatchObject({ _tag: "PlatformNotConfigured" })
    await expect(herald.accounts.startOAuth("not-a-uuid", "x")).rejects.toMatchObject({ _tag: "ParseError" })
  })
})

describe("createHerald(): analytics", () => {
  it("answers as REST does, with REST's defaults, and refuses a parameter out of range", async () => {
    const insights = await herald.analytics.insights(humanKey)
    expect(insights).toMatchObject({ since_days: 30, platform: null, format: null })
    expect(insights.coverage.with_metrics + insights.coverage.unreportable + insights.coverage.awaiting).toBe(insights.coverage.deliveries)
    expect(await herald.analytics.topPosts(humanKey, { metric: "likes" })).toMatchObject({ metric: "likes", since_days: 30 })
    expect(await herald.analytics.bestTimes(humanKey, { platform: "x" })).toMatchObject({ since_days: 90 })
    const own = await herald.analytics.bestTimes(humanKey, { account: "x:herald_demo" })
    expect(own.account).toMatch(/^[0-9a-f-]{36}$/)
    expect(own.slots.every((slot) => slot.own_weight !== undefined && slot.own_samples !== undefined)).toBe(true)
    const foreign = await herald.analytics.bestTimes(humanKey, { account: "x:nobody" }).then(() => null, (failure: unknown) => failure)
    expect(foreign).toMatchObject({ _tag: "ValidationFailed" })
    expect(String(foreign)).toContain("account")
    const outOfRange = await herald.analytics.topPosts(humanKey, { limit: 51 }).then(() => null, (failure: unknown) => failure)
    expect(String(outOfRange)).toContain("limit")
    const unknown = await herald.analytics.metrics(humanKey, "00000000-0000-4000-8000-000000000000").then(() => null, (failure: unknown) => failure)
    expect(unknown).toMatchObject({ _tag: "PostNotFound" })
  })
})

describe("createHerald(): connection health", () => {
  it("connections.check probes the demo's nine simulator accounts; issues lists none; retryAuthFailures refuses an unknown account", async () => {
    const report = await herald.connections.check(humanKey)
    expect(report.summary).toEqual({ checked: 9, healthy: 9, issues: {} })
    expect(report.data).toEqual([])
    expect(await herald.connections.issues(humanKey)).toEqual({ data: [] })
    const missing = await herald.admin.retryAuthFailures(herald.demoCredentials!.project_id, "00000000-0000-4000-8000-000000000000")
      .then(() => null, (failure: unknown) => failure)
    expect(missing).toMatchObject({ _tag: "AccountNotFound" })
  })
})

describe("createHerald(): the emergency stop and provenance", () => {
  it("pausePublishing holds the project (a create says so), pauses lists it, resumePublishing lifts it; posts made through the SDK say so", async () => {
    const projectId = herald.demoCredentials!.project_id
    const paused = await herald.admin.pausePublishing(projectId, " incident ")
    expect(paused).toMatchObject({ scope: "project", project_id: projectId, reason: "incident" })
    expect(await herald.admin.pauses()).toContainEqual(paused)
    const created = await herald.posts.create(humanKey, { caption: "sdk during the stop", social_accounts: ["x:herald_demo"] })
    expect(created.message).toContain("Publishing is paused for this project")
    const row = (await herald.posts.list(humanKey)).data.find((post) => post.id === created.id)!
    expect(row.provenance.created_by).toMatchObject({ kind: "human", surface: "sdk" })
    expect(await herald.admin.resumePublishing(projectId)).toMatchObject({ lifted: paused, in_force: [] })
    expect((await herald.admin.resumePublishing(null)).lifted).toBeNull()
    const missing = await herald.admin.pausePublishing("00000000-0000-4000-8000-000000000000").then(() => null, (failure: unknown) => failure)
    expect(missing).toMatchObject({ _tag: "ProjectNotFound" })
  })
})

describe("createHerald(): admin.updateKeyLimits", () => {
  it("edits a key's rate limit at once for the running limiter; refuses a bad value and an unknown key", async () => {
    const projectId = herald.demoCredentials!.project_id
    const listed = await (await herald.handler(new Request(`http://herald.test/admin/v1/projects/${projectId}/keys`, {
      headers: { authorization: `Bearer ${herald.demoCredentials!.admin_token}` }
    }))).json() as { readonly data: ReadonlyArray<{ readonly id: string; readonly kind: string }> }
    const human = listed.data.find((key) => key.kind === "human")!
    const read = () => herald.handler(new Request("http://herald.test/api/v1/project", { headers: { authorization: `Bearer ${humanKey}` } }))
    await read()
    const edited = await herald.admin.updateKeyLimits(projectId, human.id, { rateLimitPerMinute: 1 })
    expect([edited.id, edited.rateLimitPerMinute]).toEqual([human.id, 1])
    const limited = await read()
    expect([limited.status, limited.headers.get("x-ratelimit-limit")]).toEqual([429, "1"])
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect((await herald.admin.updateKeyLimits(projectId, human.id, { rateLimitPerMinute: 60 })).rateLimitPerMinute).toBe(60)
    const zero = await herald.admin.updateKeyLimits(projectId, human.id, { rateLimitPerMinute: 0 }).then(() => null, (failure: unknown) => failure)
    expect(String(zero)).toContain("rateLimitPerMinute")
    const unknown = await herald.admin.updateKeyLimits(projectId, "00000000-0000-4000-8000-000000000000", { dailyPostCap: 3 })
      .then(() => null, (failure: unknown) => failure)
    expect(unknown).toMatchObject({ _tag: "ApiKeyNotFound" })
  })
})
