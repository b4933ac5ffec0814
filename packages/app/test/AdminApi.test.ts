import * as Fs from "node:fs"
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { ProjectId } from "@herald/core"
import { AdminNotFound, AdminUnauthorized, HeraldAdminApi } from "@herald/http-api"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest"
import { json, startHerald, type TestHerald } from "./TestHerald.js"

let herald: TestHerald
beforeAll(async () => {
  herald = await startHerald()
})
afterAll(() => herald.close())

const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
  herald.call(`/admin/v1${path}`, { token: herald.credentials.admin_token, ...init })

const missingUuid = "00000000-0000-4000-8000-000000000000"

describe("first start", () => {
  it("writes credentials.json owner-only with the four documented keys", () => {
    const stat = Fs.statSync(`${herald.dataDir}/credentials.json`)
    expect(stat.mode & 0o777).toBe(0o600)
    expect(Object.keys(herald.credentials).sort()).toEqual(["admin_token", "agent_key", "human_key", "project_id"])
    expect(herald.credentials.human_key).toMatch(/^hk_human_/)
    expect(herald.credentials.agent_key).toMatch(/^hk_agent_/)
  })

  it("creates a copilot demo project with one simulator account per platform and the two keys", async () => {
    const project = await json(await admin(`/projects/${herald.credentials.project_id}`))
    expect(project).toMatchObject({ approval: "copilot", plan: "active" })
    const accounts = await json(await admin(`/projects/${herald.credentials.project_id}/accounts`))
    expect(accounts.data.map((a: { platform: string }) => a.platform).sort()).toEqual(
      ["bluesky", "facebook", "instagram", "linkedin", "pinterest", "threads", "tiktok", "x", "youtube"]
    )
    expect(accounts.data.every((a: { route: string; status: string }) => a.route === "simulator" && a.status === "active")).toBe(true)
    const keys = await json(await admin(`/projects/${herald.credentials.project_id}/keys`))
    expect(keys.data.map((k: { kind: string; scopes: Array<string> }) => [k.kind, [...k.scopes].sort()]).sort()).toEqual([
      ["agent", ["posts:read", "posts:write"]],
      ["human", ["posts:approve", "posts:read", "posts:write"]]
    ])
  })
})

describe("admin token", () => {
  it("answers 401 without a token, with a wrong one, and with an API key", async () => {
    for (const token of [null, "hk_admin_" + "A".repeat(43), "nonsense", herald.credentials.human_key]) {
      const reply = await admin("/projects", { token })
      expect(reply.status).toBe(401)
      expect(await json(reply)).toMatchObject({ code: expect.stringMatching(/^(missing|invalid)_admin_token$/) })
    }
  })

  it("is not an API key: the public API refuses it", async () => {
    expect((await herald.call("/api/v1/posts", { token: herald.credentials.admin_token })).status).toBe(401)
  })
})

describe("projects", () => {
  it("creates with defaults, reads, lists and updates (guardrails merged, timezone validated)", async () => {
    const created = await admin("/projects", { method: "POST", json: { name: "Acme" } })
    expect(created.status).toBe(201)
    const project = await json(created)
    expect(project).toMatchObject({ name: "Acme", timezone: "UTC", approval: "copilot", signature: "", plan: "active" })
    const list = await json(await admin("/projects"))
    expect(list.data.map((p: { id: string }) => p.id)).toContain(project.id)

    const patched = await admin(`/projects/${project.id}`, {
      method: "PATCH",
      json: { timezone: "Europe/Paris", approval: "autopilot", signature: "— Acme", guardrails: { banned_words: ["darn"] } }
    })
    expect(patched.status).toBe(200)
    const again = await admin(`/projects/${project.id}`, { method: "PATCH", json: { guardrails: { tone: "friendly" } } })
    expect(await json(again)).toMatchObject({
      timezone: "Europe/Paris",
      approval: "autopilot",
      signature: "— Acme",
      guardrails: { banned_words: ["darn"], tone: "friendly" }
    })
  })

  it("refuses an unknown time zone, an unknown field and a wrong type, naming each field", async () => {
    const reply = await admin("/projects", { method: "POST", json: { name: "", timezone: "Mars/Base", plan: "gold", extra: 1 } })
    expect(reply.status).toBe(400)
    const body = await json(reply)
    expect(body.code).toBe("invalid_request")
    expect([...new Set(body.violations.map((v: { field: string }) => v.field))].sort()).toEqual(["extra", "name", "plan", "timezone"])
  })

  it("answers 404 for a project that does not exist and 400 for an id that is not a uuid", async () => {
    const missing = await admin(`/projects/${missingUuid}`)
    expect(missing.status).toBe(404)
    expect(await json(missing)).toMatchObject({ code: "project_not_found" })
    expect((await admin(`/projects/${missingUuid}`, { method: "PATCH", json: { name: "x" } })).status).toBe(404)
    expect((await admin("/projects/not-a-uuid")).status).toBe(400)
  })

  it("reaches a typed client (HttpApiClient.make(HeraldAdminApi)) as the admin API's own classes, told apart by code", async () => {
    const adminClient = (token: string | null) =>
      HttpApiClient.make(HeraldAdminApi, {
        baseUrl: herald.origin,
        transformClient: token === null ? undefined : HttpClient.mapRequest(HttpClientRequest.bearerToken(token))
      }).pipe(Effect.provide(FetchHttpClient.layer))
    const get = (token: string | null) =>
      Effect.flatMap(adminClient(token), (api) => Effect.flip(api.projects.get({ path: { project_id: ProjectId.make(missingUuid) } })))
    const [missing, unsigned] = await Effect.runPromise(Effect.all([get(herald.credentials.admin_token), get(null)]))
    const described = (error: typeof missing) => {
      if (error instanceof AdminUnauthorized) {
        expectTypeOf(error.code).toEqualTypeOf<"missing_admin_token" | "invalid_admin_token">()
        return error.code
      }
      if (error instanceof AdminNotFound && error.code === "project_not_found") return "no such project"
      return "other"
    }
    expect(missing).toBeInstanceOf(AdminNotFound)
    expect(described(missing)).toBe("no such project")
    expect(unsigned).toBeInstanceOf(AdminUnauthorized)
    expect(described(unsigned)).toBe("missing_admin_token")
  })

  it("refuses malformed JSON (400), a wrong content type (415) and an oversized body (413)", async () => {
    const malformed = await admin("/projects", { method: "POST", body: "{nope", headers: { "content-type": "application/json" } })
    expect(malformed.status).toBe(400)
    expect(await json(malformed)).toMatchObject({ code: "malformed_body" })
    const text = await admin("/projects", { method: "POST", body: "name=x", headers: { "content-type": "text/plain" } })
    expect(text.status).toBe(415)
    const huge = await admin("/projects", { method: "POST", json: { name: "x".repeat(70_000) } })
    expect(huge.status).toBe(413)
    const empty = await admin("/projects", { method: "POST", body: "", headers: { "content-type": "application/json" } })
    expect(empty.status).toBe(400)
  })

  it("plan inactive makes the public create answer 403 no_active_plan", async () => {
    const project = await json(await admin("/projects", { method: "POST", json: { name: "Lapsed", plan: "inactive" } }))
    await admin(`/projects/${project.id}/accounts`, { method: "POST", json: { platform: "x", username: "lapsed" } })
    const key = await json(await admin(`/projects/${project.id}/keys`, {
      method: "POST",
      json: { kind: "human", scopes: ["posts:read", "posts:write"] }
    }))
    const reply = await herald.call("/api/v1/posts", { method: "POST", token: key.key, json: { caption: "hi", social_accounts: ["x:lapsed"] } })
    expect(reply.status).toBe(403)
    expect(await json(reply)).toMatchObject({ code: "no_active_plan" })
  })
})

describe("API keys", () => {
  it("shows a key once, lists it without secrets, applies its rate limit, and revokes it", async () => {
    const project = herald.credentials.project_id
    const created = await admin(`/projects/${project}/keys`, {
      method: "POST",
      json: { name: "bench", kind: "agent", scopes: ["posts:read"], rate_limit_per_minute: 5000, daily_post_cap: 10 }
    })
    expect(created.status).toBe(201)
    const key = await json(created)
    expect(key).toMatchObject({ kind: "agent", scopes: ["posts:read"], rate_limit_per_minute: 5000, daily_post_cap: 10, revoked_at: null })
    expect(key.key).toMatch(/^hk_agent_/)
    expect(key.key.startsWith(key.prefix)).toBe(true)

    const listed = await (await admin(`/projects/${project}/keys`)).text()
    expect(listed).not.toContain(key.key)
    expect(JSON.parse(listed).data.find((k: { id: string }) => k.id === key.id)).not.toHaveProperty("key")

    const used = await herald.call("/api/v1/posts", { token: key.key })
    expect(used.status).toBe(200)
    expect(used.headers.get("x-ratelimit-limit")).toBe("5000")

    const revoked = await admin(`/projects/${project}/keys/${key.id}/revoke`, { method: "POST" })
    expect(revoked.status).toBe(200)
    expect((await json(revoked)).revoked_at).not.toBeNull()
    expect((await herald.call("/api/v1/posts", { token: key.key })).status).toBe(401)
  })

  it("edits a key's rate limit and daily cap after creation (PATCH), taking effect at the key's next request", async () => {
    const project = herald.credentials.project_id
    const key = await json(await admin(`/projects/${project}/keys`, {
      method: "POST",
      json: { name: "editable", kind: "human", scopes: ["posts:read", "posts:write"], rate_limit_per_minute: 1000 }
    }))
    for (let i = 0; i < 3; i++) expect((await herald.call("/api/v1/project", { token: key.key })).status).toBe(200)
    const lowered = await admin(`/projects/${project}/keys/${key.id}`, { method: "PATCH", json: { rate_limit_per_minute: 3 } })
    expect(lowered.status).toBe(200)
    expect(await json(lowered)).toMatchObject({ id: key.id, rate_limit_per_minute: 3, daily_post_cap: null })
    // The window already counts 3: the limiter refuses the next request at once.
    const limited = await herald.call("/api/v1/project", { token: key.key })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(limited.headers.get("x-ratelimit-limit")).toBe("3")
    expect(await json(limited)).toMatchObject({ code: "rate_limited" })

    const raised = await admin(`/projects/${project}/keys/${key.id}`, { method: "PATCH", json: { rate_limit_per_minute: 1000, daily_post_cap: 1 } })
    expect(await json(raised)).toMatchObject({ rate_limit_per_minute: 1000, daily_post_cap: 1 })
    const post = (caption: string) =>
      herald.call("/api/v1/posts", { method: "POST", token: key.key, json: { caption, social_accounts: ["bluesky:herald_demo"], is_draft: true } })
    expect((await post("Editable one")).status).toBe(201)
    const capped = await post("Editable two")
    expect([capped.status, (await json(capped)).code]).toEqual([429, "daily_cap_reached"])
    // Omitted fields are kept; null lifts the key's own cap.
    const uncapped = await admin(`/projects/${project}/keys/${key.id}`, { method: "PATCH", json: { daily_post_cap: null } })
    expect(await json(uncapped)).toMatchObject({ rate_limit_per_minute: 1000, daily_post_cap: null })
    expect((await post("Editable two")).status).toBe(201)
  })

  it("refuses a limit outside 1..1,000,000 or a cap below 1 naming the field; 404 for an unknown key", async () => {
    const project = herald.credentials.project_id
    const keys = await json(await admin(`/projects/${project}/keys`))
    const bad = await admin(`/projects/${project}/keys/${keys.data[0].id}`, { method: "PATCH", json: { rate_limit_per_minute: 0, daily_post_cap: 0 } })
    expect(bad.status).toBe(400)
    expect([...new Set((await json(bad)).violations.map((v: { field: string }) => v.field))].sort()).toEqual(["daily_post_cap", "rate_limit_per_minute"])
    const missing = await admin(`/projects/${project}/keys/${missingUuid}`, { method: "PATCH", json: { rate_limit_per_minute: 5 } })
    expect([missing.status, (await json(missing)).code]).toEqual([404, "api_key_not_found"])
  })

  it("refuses an unknown kind or scope, and answers 404 for another project's key", async () => {
    const bad = await admin(`/projects/${herald.credentials.project_id}/keys`, {
      method: "POST",
      json: { kind: "robot", scopes: ["posts:delete"] }
    })
    expect(bad.status).toBe(400)
    expect([...new Set((await json(bad)).violations.map((v: { field: string }) => v.field))].sort()).toEqual(["kind", "scopes[0]"])
    const other = await json(await admin("/projects", { method: "POST", json: { name: "Other" } }))
    const demoKeys = await json(await admin(`/projects/${herald.credentials.project_id}/keys`))
    const reply = await admin(`/projects/${other.id}/keys/${demoKeys.data[0].id}/revoke`, { method: "POST" })
    expect(reply.status).toBe(404)
    expect(await json(reply)).toMatchObject({ code: "api_key_not_found" })
    expect((await admin(`/projects/${missingUuid}/keys`)).status).toBe(404)
  })
})

describe("social accounts", () => {
  it("connects a simulator account, refuses other routes, and sets a status", async () => {
    const project = herald.credentials.project_id
    const connected = await admin(`/projects/${project}/accounts`, { method: "POST", json: { platform: "bluesky", username: "@second" } })
    expect(connected.status).toBe(201)
    const account = await json(connected)
    expect(account).toMatchObject({ platform: "bluesky", username: "second", route: "simulator", status: "active" })

    // Every network has a direct route in this build; one whose client is unset names what to set.
    const direct = await admin(`/projects/${project}/accounts`, { method: "POST", json: { platform: "pinterest", username: "real", route: "direct" } })
    expect(direct.status).toBe(400)
    expect(await json(direct)).toMatchObject({ code: "platform_not_configured" })
    // Instagram's Facebook Login route reads the Facebook app's settings: unset, it names them.
    const secondLogin = await admin(`/projects/${project}/accounts/oauth`, { method: "POST", json: { platform: "instagram", route: "facebook_login" } })
    expect(secondLogin.status).toBe(400)
    const unconfigured = await json(secondLogin)
    expect(unconfigured).toMatchObject({ code: "platform_not_configured" })
    expect(JSON.stringify(unconfigured)).toContain("HERALD_FACEBOOK_CLIENT_ID")

    const status = await admin(`/projects/${project}/accounts/${account.id}`, { method: "PATCH", json: { status: "needs_reconnect" } })
    expect(await json(status)).toMatchObject({ id: account.id, status: "needs_reconnect" })
    const rows = await json(await herald.call("/api/v1/social-accounts", { token: herald.credentials.human_key }))
    expect(rows.data.find((row: { id: string }) => row.id === account.id)).toMatchObject({ status: "needs_reconnect" })

    const unknownPlatform = await admin(`/projects/${project}/accounts`, { method: "POST", json: { platform: "myspace", username: "x" } })
    expect(unknownPlatform.status).toBe(400)
    const missingAccount = await admin(`/projects/${project}/accounts/${missingUuid}`, { method: "PATCH", json: { status: "active" } })
    expect(missingAccount.status).toBe(404)
    expect(await json(missingAccount)).toMatchObject({ code: "account_not_found" })
    const missingProject = await admin(`/projects/${missingUuid}/accounts/${account.id}`, { method: "PATCH", json: { status: "active" } })
    expect(missingProject.status).toBe(404)
    expect(await json(missingProject)).toMatchObject({ code: "project_not_found" })
  })

  it("retry-auth-failures queues again what failed while the account waited for a reconnect, and answers how many", async () => {
    const project = herald.credentials.project_id
    const account = await json(await admin(`/projects/${project}/accounts`, { method: "POST", json: { platform: "threads", username: "lapsed_login" } }))
    await admin(`/projects/${project}/accounts/${account.id}`, { method: "PATCH", json: { status: "needs_reconnect" } })
    const created = await json(await herald.call("/api/v1/posts", { method: "POST", token: herald.credentials.human_key, json: { caption: "after the reconnect", social_accounts: [account.id] } }))
    const receipt = async () => json(await herald.call(`/api/v1/post-results?post_id=${created.id}`, { token: herald.credentials.human_key }))
    const until = async (status: string) => {
      const deadline = Date.now() + 15_000
      let seen = await receipt()
      while (seen.post_status !== status && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        seen = await receipt()
      }
      return seen
    }
    const failed = await until("failed")
    expect(failed.data[0].error).toMatchObject({ category: "auth_expired", code: "account_needs_reconnect" })
    await admin(`/projects/${project}/accounts/${account.id}`, { method: "PATCH", json: { status: "active" } })
    const retried = await admin(`/projects/${project}/accounts/${account.id}/retry-auth-failures`, { method: "POST" })
    expect(retried.status).toBe(200)
    expect(await json(retried)).toEqual({ queued: 1 })
    expect((await until("posted")).data[0]).toMatchObject({ status: "success" })
    expect((await admin(`/projects/${project}/accounts/${missingUuid}/retry-auth-failures`, { method: "POST" })).status).toBe(404)
  })
})

describe("webhook endpoints", () => {
  it("rotates a secret: the new one shown once, the old one's end 24 h on by default, expires_in_seconds checked", async () => {
    const project = herald.credentials.project_id
    const endpoint = await json(await admin(`/projects/${project}/webhooks`, {
      method: "POST",
      json: { url: "https://hooks.example.com/rotate", kinds: ["post.published"] }
    }))
    const rotate = (body: Record<string, unknown>, id = endpoint.id) =>
      admin(`/projects/${project}/webhooks/${id}/rotate-secret`, { method: "POST", json: body })

    const before = Date.now()
    const first = await rotate({})
    expect(first.status).toBe(200)
    const rotated = await json(first)
    expect(rotated.id).toBe(endpoint.id)
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(rotated.secret).not.toBe(endpoint.secret)
    const end = Date.parse(rotated.previous_secret_expires_at)
    expect(end - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1000)
    expect(end - Date.now()).toBeLessThanOrEqual(24 * 3600_000)
    const listed = await (await admin(`/projects/${project}/webhooks`)).text()
    expect(listed).not.toContain(rotated.secret)
    expect(listed).not.toContain(endpoint.secret)

    const now = await json(await rotate({ expires_in_seconds: 0 }))
    expect(Math.abs(Date.parse(now.previous_secret_expires_at) - Date.now())).toBeLessThan(60_000)
    const week = await json(await rotate({ expires_in_seconds: 604800 }))
    expect(Date.parse(week.previous_secret_expires_at) - Date.now()).toBeGreaterThan(604800_000 - 60_000)

    for (const bad of [604801, -1, 1.5, "60"]) {
      const refused = await rotate({ expires_in_seconds: bad })
      expect(refused.status, String(bad)).toBe(400)
      expect(JSON.stringify(await json(refused))).toContain("expires_in_seconds")
    }
    // Like every admin operation with a body, the defaults take `{}`: a bare POST is asked for JSON.
    const bare = await admin(`/projects/${project}/webhooks/${endpoint.id}/rotate-secret`, { method: "POST" })
    expect(bare.status).toBe(415)
    const missing = await rotate({}, missingUuid)
    expect(missing.status).toBe(404)
    expect(await json(missing)).toMatchObject({ code: "webhook_endpoint_not_found" })
    await admin(`/projects/${project}/webhooks/${endpoint.id}`, { method: "DELETE" })
  })

  it("creates with a secret shown once, lists, disables, enables and deletes", async () => {
    const project = herald.credentials.project_id
    const created = await admin(`/projects/${project}/webhooks`, {
      method: "POST",
      json: { url: "https://hooks.example.com/herald", kinds: ["post.published", "post.failed"] }
    })
    expect(created.status).toBe(201)
    const endpoint = await json(created)
    expect(endpoint).toMatchObject({ enabled: true, kinds: ["post.published", "post.failed"], consecutive_failures: 0 })
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    const listed = await (await admin(`/projects/${project}/webhooks`)).text()
    expect(listed).not.toContain(endpoint.secret)

    const off = await admin(`/projects/${project}/webhooks/${endpoint.id}`, { method: "PATCH", json: { enabled: false } })
    expect(await json(off)).toMatchObject({ enabled: false })
    const on = await admin(`/projects/${project}/webhooks/${endpoint.id}`, { method: "PATCH", json: { enabled: true } })
    expect(await json(on)).toMatchObject({ enabled: true })
    const kinds = await admin(`/projects/${project}/webhooks/${endpoint.id}`, { method: "PATCH", json: { kinds: ["post.rejected"] } })
    expect(await json(kinds)).toMatchObject({ enabled: true, kinds: ["post.rejected"] })
    const noKinds = await admin(`/projects/${project}/webhooks/${endpoint.id}`, { method: "PATCH", json: { kinds: [] } })
    expect(noKinds.status).toBe(400)
    expect(JSON.stringify(await json(noKinds))).toContain("kinds")
    const deleted = await admin(`/projects/${project}/webhooks/${endpoint.id}`, { method: "DELETE" })
    expect(await json(deleted)).toEqual({ id: endpoint.id, deleted: true })
    const gone = await admin(`/projects/${project}/webhooks/${endpoint.id}`, { method: "DELETE" })
    expect(gone.status).toBe(404)
    expect(await json(gone)).toMatchObject({ code: "webhook_endpoint_not_found" })
    const untested = await admin(`/projects/${project}/webhooks/${endpoint.id}/test`, { method: "POST" })
    expect(untested.status).toBe(404)
    expect(await json(untested)).toMatchObject({ code: "webhook_endpoint_not_found" })
  })

  it("refuses a plain http URL, an unknown kind and an empty kind list", async () => {
    const reply = await admin(`/projects/${herald.credentials.project_id}/webhooks`, {
      method: "POST",
      json: { url: "http://hooks.example.com/", kinds: [] }
    })
    expect(reply.status).toBe(400)
    const violations = (await json(reply)).violations as ReadonlyArray<{ readonly field: string; readonly message: string }>
    expect(violations.map((v) => v.field).sort()).toEqual(["kinds", "url"])
    // The limit broken, not the field's description.
    expect(violations.find((v) => v.field === "kinds")?.message).toBe("Expected an array of at least 1 item(s), actual []")
    const kind = await admin(`/projects/${herald.credentials.project_id}/webhooks`, {
      method: "POST",
      json: { url: "https://hooks.example.com/", kinds: ["post.exploded"] }
    })
    expect(kind.status).toBe(400)
  })

  it("a refused field of an approval channel or a login names the limit broken, not the field's description", async () => {
    const project = herald.credentials.project_id
    const channel = await admin(`/projects/${project}/approval-channels`, {
      method: "POST",
      json: { kind: "chat", url: "https://hooks.example.com/chat", label: "l".repeat(201) }
    })
    expect(channel.status).toBe(400)
    expect((await json(channel)).violations).toContainEqual(
      { field: "label", account: null, message: "Expected a string at most 200 character(s) long, actual a string of 201 characters" }
    )
    const login = await admin(`/projects/${project}/accounts/login`, {
      method: "POST",
      json: { platform: "bluesky", identifier: "i".repeat(301), password: "app-password" }
    })
    expect(login.status).toBe(400)
    expect((await json(login)).violations).toContainEqual(
      { field: "identifier", account: null, message: "Expected a string at most 300 character(s) long, actual a string of 301 characters" }
    )
  })

  it("refuses destinations that are not publicly routable, naming the address", async () => {
    const reasons: Record<string, RegExp> = {
      "https://127.0.0.1/hook": /loopback/,
      "https://10.0.0.1/hook": /private/,
      "https://169.254.169.254/hook": /metadata/,
      "https://localhost/hook": /loopback/,
      "https://[::127.0.0.1]/hook": /^::7f00:1 is an IPv4-compatible address$/,
      "https://[::ffff:10.0.0.1]/hook": /^::ffff:a00:1 is an IPv4-mapped address$/,
      "https://[64:ff9b::a9fe:a9fe]/hook": /^64:ff9b::a9fe:a9fe is a NAT64 address$/
    }
    for (const [url, reason] of Object.entries(reasons)) {
      const reply = await admin(`/projects/${herald.credentials.project_id}/webhooks`, {
        method: "POST",
        json: { url, kinds: ["post.published"] }
      })
      expect(reply.status, url).toBe(400)
      const body = await json(reply)
      expect(body.code).toBe("webhook_url_refused")
      expect(body.violations).toEqual([{ field: "url", account: null, message: expect.stringMatching(reason) }])
    }
    const listed = await json(await admin(`/projects/${herald.credentials.project_id}/webhooks`))
    expect(listed.data.map((endpoint: { url: string }) => endpoint.url)).not.toContain("https://127.0.0.1/hook")
  })
})

describe("documents and health", () => {
  it("serves a valid OpenAPI 3.1 document for the admin API without a token", async () => {
    const reply = await herald.call("/admin/v1/openapi.json")
    expect(reply.status).toBe(200)
    const document = await json(reply)
    expect(document.openapi).toBe("3.1.0")
    expect(Object.keys(document.paths)).toContain("/admin/v1/projects/{project_id}/keys")
    const editKey = document.paths["/admin/v1/projects/{project_id}/keys/{key_id}"].patch
    expect(Object.keys(editKey.responses).sort()).toEqual(expect.arrayContaining(["200", "400", "401", "404"]))
    expect(JSON.stringify(editKey.requestBody)).toContain("UpdateKeyBody")
    const result = await new Validator().validate(document)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it("GET /health says the database answers and lists the workers", async () => {
    const reply = await herald.call("/health")
    expect(reply.status).toBe(200)
    const body = await json(reply)
    expect(body.database).toEqual({ reachable: true })
    expect(["ok", "degraded"]).toContain(body.status)
  })

  it("GET /health shows when each kind of worker last ran: publishing, metrics, connection checks, webhooks and approval notices", async () => {
    // Every loop beats on its first turn; give them a moment after start-up.
    const deadline = Date.now() + 10_000
    let kinds: Array<string> = []
    while (Date.now() < deadline) {
      const body = await json(await herald.call("/health"))
      kinds = [...new Set<string>(body.workers.map((worker: { kind: string }) => worker.kind))].sort()
      if (kinds.length === 5) {
        expect(body.status).toBe("ok")
        expect(body.workers.every((worker: { last_ran_at: string; stale: boolean }) => !worker.stale && !Number.isNaN(Date.parse(worker.last_ran_at)))).toBe(true)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(kinds).toEqual(["approval-notifier", "connection-checker", "dispatcher", "metrics", "webhooks"])
  })
})
