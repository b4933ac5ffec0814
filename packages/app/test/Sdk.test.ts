import * as Fs from "node:fs"
import { type RunningSimulator, startSimulator } from "@herald/publishers"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest"
import {
  AccountNotFound,
  ApiKeyNotFound,
  HeraldError,
  InvalidApiKey,
  InvalidRequest,
  MediaNotFound,
  PlatformNotConfigured,
  PostNotFound,
  PostSuperseded,
  ProjectNotFound,
  RevokedApiKey,
  ValidationFailed,
  WebhookEndpointNotFound
} from "../src/index.js"
import { createHerald, type Herald } from "../src/Sdk.js"

let herald: Herald
let humanKey: string
let projectId: string
// A simulator answering at once: the connection check probes every account and waits for them all.
let simulator: RunningSimulator
const dataDir = embeddedDataDir("herald-sdk-")
const unknownId = "00000000-0000-4000-8000-000000000000"

beforeAll(async () => {
  simulator = await startSimulator({ latency: { minMs: 0, maxMs: 0 } })
  herald = await createHerald({ publicUrl: "http://herald.test", dataDir, demo: true, simulatorUrl: simulator.url })
  humanKey = herald.demoCredentials!.human_key
  projectId = herald.demoCredentials!.project_id
}, 60_000)
afterAll(async () => {
  await herald?.close()
  await simulator?.close()
  Fs.rmSync(dataDir, { recursive: true, force: true })
})

/** The rejection of a call (null if it resolved). */
const rejection = (call: Promise<unknown>) => call.then(() => null, (failure: unknown) => failure)

describe("createHerald(): errors are the SDK's own classes", () => {
  it("a body with text that cannot be stored rejects with InvalidRequest (400, the field named) and stores nothing", async () => {
    const api = herald.api(humanKey)
    const nul = await rejection(api.posts.create({ payload: { caption: "sdk \u0000", social_accounts: ["x:herald_demo"], is_draft: true } }))
    expect(nul).toBeInstanceOf(InvalidRequest)
    expect(nul).toBeInstanceOf(HeraldError)
    expect(nul).toBeInstanceOf(Error)
    expect(nul).toMatchObject({ _tag: "InvalidRequest", code: "invalid_request", status: 400 })
    expect((nul as InvalidRequest).details.violations).toEqual([{ field: "caption", account: null, message: "contains a NUL character (U+0000)" }])
    const surrogate = await rejection(api.posts.create({
      payload: { caption: "sdk fine", social_accounts: ["x:herald_demo"], is_draft: true, platform_configurations: { x: { thread: ["\ud800"] } } }
    }))
    expect((surrogate as InvalidRequest).details.violations)
      .toEqual([{ field: "platform_configurations.x.thread[0]", account: null, message: "contains an unpaired surrogate (U+D800)" }])
    expect((await api.posts.list({ urlParams: {} })).data).toEqual([])
    const created = await api.posts.create({ payload: { caption: "sdk fine", social_accounts: ["x:herald_demo"], is_draft: true } })
    expect([created.status, created.repeated]).toEqual(["draft", false])
  })

  it("a bad id is refused before the request leaves, naming the field; an unknown one is PostNotFound with its code and status", async () => {
    const api = herald.api(humanKey)
    const malformed = await rejection(api.posts.approve({ path: { id: "not-a-uuid" }, payload: { decision: "approve" } }))
    expect(malformed).toBeInstanceOf(InvalidRequest)
    expect((malformed as InvalidRequest).details.violations?.[0]).toMatchObject({ field: "id" })
    const missing = await rejection(api.deliveries.results({ urlParams: { post_id: unknownId } }))
    expect(missing).toBeInstanceOf(PostNotFound)
    expect(missing).toMatchObject({ code: "post_not_found", status: 404, message: `post ${unknownId} not found in this project` })
  })

  it("the fetch handler answers an id longer than the router's default 100 characters with 400 naming it, not 404", async () => {
    const reply = await herald.handler(new Request(`http://herald.test/api/v1/posts/${"a".repeat(101)}`, {
      headers: { authorization: `Bearer ${humanKey}` }
    }))
    expect(reply.status).toBe(400)
    expect(((await reply.json()) as { readonly violations: unknown }).violations).toEqual([
      { field: "id", account: null, message: "Expected a Universally Unique Identifier, actual a string of 101 characters" }
    ])
  })

  it("a post the guardrails or the rules refuse rejects with ValidationFailed naming the field", async () => {
    const refused = await rejection(herald.api(humanKey).posts.create({ payload: { caption: "hi", social_accounts: ["x:nobody"] } }))
    expect(refused).toBeInstanceOf(ValidationFailed)
    expect((refused as ValidationFailed).details.violations?.[0]).toMatchObject({ field: "social_accounts[0]" })
  })

  it("an unknown key is InvalidApiKey and a revoked one RevokedApiKey", async () => {
    expect(await rejection(herald.api("hk_agent_" + "A".repeat(40)).accounts.project())).toBeInstanceOf(InvalidApiKey)
    const made = await herald.admin.keys.create({ path: { project_id: projectId }, payload: { name: "sdk test", kind: "agent", scopes: ["posts:read"], rate_limit_per_minute: 60, daily_post_cap: null } })
    await herald.admin.keys.revoke({ path: { project_id: projectId, key_id: made.id } })
    const revoked = await rejection(herald.api(made.key).accounts.project())
    expect(revoked).toBeInstanceOf(RevokedApiKey)
    expect(revoked).toMatchObject({ status: 401, code: "revoked_api_key" })
  })

  it("the Effect flavour fails with the same classes, typed by code: catchTag works", async () => {
    const effect = herald.effect.api(humanKey).deliveries.results({ urlParams: { post_id: unknownId } })
    type Failure = Effect.Effect.Error<typeof effect>
    expectTypeOf<Extract<Failure, { readonly code: "post_not_found" }>>().toEqualTypeOf<PostNotFound>()
    const told = await Effect.runPromise(effect.pipe(
      Effect.as("found"),
      Effect.catchTag("PostNotFound", (error) => Effect.succeed(`missing: ${error.status}`))
    ))
    expect(told).toBe("missing: 404")
    const read = herald.effect.api(humanKey).posts.get({ path: { id: unknownId } })
    expectTypeOf<Extract<Effect.Effect.Error<typeof read>, { readonly code: "post_not_found" }>>().toEqualTypeOf<PostNotFound>()
    expect(await Effect.runPromise(read.pipe(Effect.as("found"), Effect.catchTag("PostNotFound", () => Effect.succeed("missing"))))).toBe("missing")
  })
})

describe("createHerald(): the whole surface, in process", () => {
  it("posts: create, edit, approve, list, delete; receipts; guardrail check; project; accounts; posting rules", async () => {
    const agent = herald.api(herald.demoCredentials!.agent_key)
    const human = herald.api(humanKey)
    const held = await agent.posts.create({ payload: { caption: "Held for a person", social_accounts: ["x:herald_demo"] } })
    expect(held.status).toBe("pending_approval")
    const edited = await agent.posts.edit({ path: { id: held.id }, payload: { caption: "Held for a person, edited" } })
    expect(edited.supersedes).toBe(held.id)
    const decided = await human.posts.approve({ path: { id: edited.id }, payload: { decision: "reject", reason: "not now" } })
    expect(decided).toMatchObject({ status: "rejected", decision: "reject", reason: "not now" })
    const rejectedRows = (await human.posts.list({ urlParams: { status: ["rejected"] } })).data
    expect(rejectedRows.map((post) => post.id)).toContain(edited.id)
    const got = await human.posts.get({ path: { id: edited.id } })
    expect(got).toEqual(rejectedRows.find((post) => post.id === edited.id))
    expect(got).toMatchObject({ supersedes: held.id, rejectionReason: "not now" })
    expect(await rejection(human.posts.get({ path: { id: held.id } }))).toBeInstanceOf(PostSuperseded)
    expect(await human.deliveries.results({ urlParams: { post_id: edited.id } })).toMatchObject({ post_id: edited.id, post_status: "rejected" })
    expect(await human.posts.remove({ path: { id: edited.id } })).toMatchObject({ id: edited.id, deleted: true })
    expect(await human.accounts.checkGuardrails({ payload: { caption: "A calm announcement" } })).toMatchObject({ allowed: true })
    expect(await human.accounts.project()).toMatchObject({ id: projectId })
    expect((await human.accounts.socialAccounts()).data.length).toBe(9)
    expect((await human.accounts.postingRules({ urlParams: { account_ids: "x:herald_demo" } })).data).toHaveLength(1)
  })

  it("analytics answer as REST does, with REST's defaults; a parameter out of range is InvalidRequest naming it", async () => {
    const api = herald.api(humanKey)
    expect(await api.analytics.insights({ urlParams: {} })).toMatchObject({ since_days: 30, platform: null, format: null })
    expect(await api.analytics.topPosts({ urlParams: { metric: "likes" } })).toMatchObject({ metric: "likes", since_days: 30 })
    expect(await api.analytics.bestTimes({ urlParams: { platform: "x" } })).toMatchObject({ since_days: 90 })
    const outOfRange = await rejection(api.analytics.topPosts({ urlParams: { limit: 51 } }))
    expect(outOfRange).toBeInstanceOf(InvalidRequest)
    expect((outOfRange as InvalidRequest).details.violations?.[0]).toMatchObject({ field: "limit" })
    expect(await rejection(api.analytics.metrics({ urlParams: { post_id: unknownId } }))).toBeInstanceOf(PostNotFound)
    expect(await rejection(api.analytics.metricsHistory({ urlParams: { post_id: unknownId } }))).toBeInstanceOf(PostNotFound)
    expect(await rejection(api.media.get({ path: { id: unknownId } }))).toBeInstanceOf(MediaNotFound)
    expect(await rejection(api.media.content({ path: { id: unknownId } }))).toBeInstanceOf(MediaNotFound)
  })

  it("connection health: check probes the demo's nine accounts, issues lists none", async () => {
    const api = herald.api(humanKey)
    expect((await api.accounts.checkConnections()).summary).toEqual({ checked: 9, healthy: 9, issues: {} })
    expect(await api.accounts.connectionIssues()).toEqual({ data: [] })
  })

  it("admin: no token needed in process; OAuth refusals and unknown ids come as their classes", async () => {
    const started = rejection(herald.admin.accounts.startOAuth({ path: { project_id: projectId }, payload: { platform: "pinterest" } }))
    expect(await started).toBeInstanceOf(PlatformNotConfigured)
    // Instagram's Facebook Login route reads the Facebook app's settings: the message names them.
    const route = await rejection(herald.admin.accounts.startOAuth({ path: { project_id: projectId }, payload: { platform: "instagram", route: "facebook_login" } }))
    expect(route).toBeInstanceOf(PlatformNotConfigured)
    expect((route as PlatformNotConfigured).message).toContain("HERALD_FACEBOOK_CLIENT_ID")
    expect(await rejection(herald.admin.accounts.retryAuthFailures({ path: { project_id: projectId, account_id: unknownId } })))
      .toBeInstanceOf(AccountNotFound)
    expect(await rejection(herald.admin.keys.update({ path: { project_id: projectId, key_id: unknownId }, payload: { daily_post_cap: 3 } })))
      .toBeInstanceOf(ApiKeyNotFound)
    expect(await rejection(herald.admin.webhooks.rotateSecret({ path: { project_id: projectId, webhook_id: unknownId }, payload: { expires_in_seconds: 60 } })))
      .toBeInstanceOf(WebhookEndpointNotFound)
    expect(await rejection(herald.admin.publishing.pauseProject({ path: { project_id: unknownId }, payload: { reason: null } }))).toBeInstanceOf(ProjectNotFound)
  })

  it("the emergency stop through admin; a post made in process says surface sdk; the key's last use is recorded", async () => {
    const paused = await herald.admin.publishing.pauseProject({ path: { project_id: projectId }, payload: { reason: "incident" } })
    expect(paused).toMatchObject({ scope: "project", project_id: projectId, reason: "incident" })
    const created = await herald.api(humanKey).posts.create({ payload: { caption: "sdk during the stop", social_accounts: ["x:herald_demo"] } })
    expect(created.message).toContain("Publishing is paused for this project")
    const row = (await herald.api(humanKey).posts.list({ urlParams: {} })).data.find((post) => post.id === created.id)!
    expect(row.provenance.created_by).toMatchObject({ kind: "human", surface: "sdk" })
    await herald.admin.publishing.resumeProject({ path: { project_id: projectId } })
    const keys = (await herald.admin.keys.list({ path: { project_id: projectId } })).data
    expect(keys.find((key) => key.kind === "human")!.last_used_at).not.toBeNull()
  })

  // The in-process clients were built first in this file; SdkAdapters.test.ts builds REST's handler first.
  it("in-process calls count against no rate limit; REST's do", async () => {
    const keys = (await herald.admin.keys.list({ path: { project_id: projectId } })).data
    const human = keys.find((key) => key.kind === "human")!
    const read = () => herald.handler(new Request("http://herald.test/api/v1/project", { headers: { authorization: `Bearer ${humanKey}` } }))
    const before = (await read()).status
    await herald.admin.keys.update({ path: { project_id: projectId, key_id: human.id }, payload: { rate_limit_per_minute: 1 } })
    const statuses: Array<number> = [before]
    for (let i = 0; i < 4 && !statuses.includes(429); i++) statuses.push((await read()).status)
    expect(statuses).toContain(429)
    // REST is refused now; in process, the same key goes on.
    for (let i = 0; i < 3; i++) expect((await herald.api(humanKey).accounts.project()).id).toBe(projectId)
    await herald.admin.keys.update({ path: { project_id: projectId, key_id: human.id }, payload: { rate_limit_per_minute: 60 } })
  })
})
