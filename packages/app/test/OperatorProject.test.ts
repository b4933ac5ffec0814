import { ApiKeyHash, operatorKeyId, operatorRateLimitPerMinute } from "@herald/core"
import { hashApiKey } from "@herald/http-api"
import { type RunningSimulator, startSimulator } from "@herald/publishers"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it as vitestIt } from "vitest"
import { heraldClient } from "../src/index.js"
import { InvalidRequest, ProjectNotFound } from "../src/sdk/HeraldErrors.js"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"
import { json, receiptWhen, startHerald, type TestHerald } from "./TestHerald.js"

/** The session cookie a sign-in reply set, as the browser would send it back. */
const cookieOf = (reply: Response) => (reply.headers.get("set-cookie") ?? "").split(";")[0]!

/**
 * The admin token acting on one project's REST API with the Herald-Project header (docs/api.md,
 * "The operator"): as a bearer and behind the operator's dashboard session.
 */
describe.each([
  { name: "the embedded database", postgres: false },
  { name: "PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", postgres: true }
])("the operator on a project's REST API (Herald-Project), on $name", ({ postgres }) => {
  let herald: TestHerald
  let operatorId: string
  let schema: Awaited<ReturnType<typeof throwawaySchema>> | undefined
  // A simulator answering at once: the tests wait for posts to go out.
  let simulator: RunningSimulator | undefined
  beforeAll(async () => {
    if (postgres && databaseUrl === "") return
    schema = postgres ? await throwawaySchema("herald_operator") : undefined
    simulator = await startSimulator({ latency: { minMs: 0, maxMs: 0 } })
    herald = await startHerald({ workers: true, simulatorUrl: simulator.url, ...(schema === undefined ? {} : { databaseUrl: schema.url }) })
    operatorId = operatorKeyId(ApiKeyHash.make(hashApiKey(herald.credentials.admin_token)))
  }, 60_000)
  afterAll(async () => {
    await herald?.close()
    await simulator?.close()
    await schema?.drop()
  })
  const it = postgres && databaseUrl === "" ? vitestIt.skip : vitestIt

  const asOperator = (path: string, init: { method?: string; json?: unknown; project?: string } = {}) =>
    herald.call(path, {
      ...(init.method === undefined ? {} : { method: init.method }),
      ...(init.json === undefined ? {} : { json: init.json }),
      token: herald.credentials.admin_token,
      headers: { "herald-project": init.project ?? herald.credentials.project_id }
    })

  it("refuses the admin token without the header as before, an unknown project with 404 and a malformed one with 400, each naming the header", async () => {
    const bare = await herald.call("/api/v1/posts", { token: herald.credentials.admin_token })
    expect(bare.status).toBe(401)
    expect(await json(bare)).toMatchObject({ code: "invalid_api_key", error: expect.stringMatching(/Herald-Project/) })

    const unknown = await asOperator("/api/v1/posts", { project: randomUUID() })
    expect(unknown.status).toBe(404)
    expect(await json(unknown)).toMatchObject({ code: "project_not_found", error: expect.stringMatching(/Herald-Project/) })

    const malformed = await asOperator("/api/v1/posts", { project: "acme" })
    expect(malformed.status).toBe(400)
    expect((await json(malformed)).violations).toEqual([expect.objectContaining({ field: "Herald-Project" })])

    const unknownToken = await herald.call("/api/v1/posts", {
      token: "hk_admin_" + "A".repeat(43),
      headers: { "herald-project": herald.credentials.project_id }
    })
    expect(unknownToken.status).toBe(401)
    expect((await json(unknownToken)).code).toBe("invalid_api_key")
  })

  it("refuses the header with an API key (a key has its project), 400 naming it", async () => {
    for (const key of [herald.credentials.human_key, herald.credentials.agent_key]) {
      const reply = await herald.call("/api/v1/posts", { token: key, headers: { "herald-project": herald.credentials.project_id } })
      expect(reply.status).toBe(400)
      expect(await json(reply)).toMatchObject({
        code: "invalid_request",
        violations: [expect.objectContaining({ field: "Herald-Project", message: expect.stringMatching(/admin token only/) })]
      })
    }
  })

  it("acts as a person of the project: every scope, its own rate limit, its posts not held, provenance naming the operator", async () => {
    const project = await asOperator("/api/v1/project")
    expect(project.status).toBe(200)
    expect((await json(project)).id).toBe(herald.credentials.project_id)
    expect(project.headers.get("x-ratelimit-limit")).toBe(String(operatorRateLimitPerMinute))

    // The demo project is in copilot mode: an agent's post is held, the operator's is not.
    const created = await asOperator("/api/v1/posts", { method: "POST", json: { caption: `From the operator ${Date.now()}`, social_accounts: ["bluesky:herald_demo"] } })
    expect(created.status).toBe(201)
    const post = await json(created)
    expect(post.status).not.toBe("pending_approval")
    const receipt = await receiptWhen(herald, post.id, (r) => r.post_status === "posted")
    expect(receipt.post_status).toBe("posted")
    const operator = { key_id: operatorId, key_name: "operator", kind: "human", surface: "rest" }
    expect(receipt.provenance.created_by).toEqual(operator)
    // Version 8: never an API key's id (those are random, version 4).
    expect(operatorId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)

    const takedown = await asOperator(`/api/v1/post-results/${receipt.data[0].id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(200)
    const after = await json(await herald.call(`/api/v1/post-results?post_id=${post.id}`, { token: herald.credentials.human_key }))
    expect(after.data[0].taken_down_by_key).toEqual(operator)
  }, 60_000)

  it("approves an agent's held post through the operator's dashboard session, the decision naming the operator", async () => {
    const held = await json(await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.agent_key,
      json: { caption: `Held for the operator ${Date.now()}`, social_accounts: ["linkedin:herald_demo"] }
    }))
    expect(held.status).toBe("pending_approval")

    const signIn = await herald.call("/dashboard/session", { method: "POST", token: null, json: { credential: herald.credentials.admin_token } })
    const cookie = cookieOf(signIn)
    const { csrf_token } = await json(signIn)
    const session = (path: string, init: { method?: string; json?: unknown; project?: string | null } = {}) =>
      herald.call(path, {
        ...(init.method === undefined ? {} : { method: init.method }),
        ...(init.json === undefined ? {} : { json: init.json }),
        token: null,
        headers: {
          cookie,
          "x-csrf-token": csrf_token,
          ...(init.project === null ? {} : { "herald-project": init.project ?? herald.credentials.project_id })
        }
      })

    const bare = await session("/api/v1/posts", { project: null })
    expect(bare.status).toBe(403)
    expect(await json(bare)).toMatchObject({ code: "session_not_allowed", error: expect.stringMatching(/Herald-Project/) })

    const queue = await json(await session("/api/v1/posts?status=pending_approval"))
    expect(queue.data.map((row: { id: string }) => row.id)).toContain(held.id)
    const approved = await session(`/api/v1/posts/${held.id}/approve`, { method: "POST", json: { decision: "approve" } })
    expect(approved.status).toBe(200)
    const receipt = await receiptWhen(herald, held.id, (r) => r.post_status === "posted")
    expect(receipt.post_status).toBe("posted")
    expect(receipt.provenance.decided_by).toMatchObject({ outcome: "approved", via: "api_key", key_id: operatorId, key_name: "operator", surface: "rest" })
    expect(receipt.provenance.created_by).toMatchObject({ kind: "agent" })
  }, 60_000)

  it("refuses the header on a reviewer's session (its key has its project)", async () => {
    const signIn = await herald.call("/dashboard/session", { method: "POST", token: null, json: { credential: herald.credentials.human_key } })
    const reply = await herald.call("/api/v1/posts", { token: null, headers: { cookie: cookieOf(signIn), "herald-project": herald.credentials.project_id } })
    expect(reply.status).toBe(400)
    expect((await json(reply)).violations).toEqual([expect.objectContaining({ field: "Herald-Project" })])
  })

  it("MCP does not take the admin token, header or not: the connector is for agents' keys", async () => {
    const reply = await herald.call("/api/mcp", {
      method: "POST",
      token: herald.credentials.admin_token,
      headers: { "herald-project": herald.credentials.project_id, accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }
    })
    expect(reply.status).toBe(401)
    expect((await json(reply)).code).toBe("invalid_api_key")
  })

  it("heraldClient with adminToken and project: the typed REST client acts as the operator", async () => {
    const remote = heraldClient({ url: herald.origin, adminToken: herald.credentials.admin_token, project: herald.credentials.project_id })
    expect((await remote.api.accounts.project()).id).toBe(herald.credentials.project_id)
    const draft = await remote.api.posts.create({ payload: { caption: "An operator's draft", social_accounts: ["x:herald_demo"], is_draft: true } })
    const rows = (await remote.api.posts.list({ urlParams: { status: ["draft"] } })).data
    expect(rows.find((row) => row.id === draft.id)?.provenance.created_by).toMatchObject({ key_id: operatorId, key_name: "operator", kind: "human" })
    const elsewhere = heraldClient({ url: herald.origin, adminToken: herald.credentials.admin_token, project: randomUUID() })
    await expect(elsewhere.api.accounts.project()).rejects.toBeInstanceOf(ProjectNotFound)
    expect(() => heraldClient({ url: herald.origin, apiKey: herald.credentials.human_key, adminToken: herald.credentials.admin_token, project: herald.credentials.project_id }))
      .toThrow(/project goes with adminToken and without apiKey/)
    // The header with a key, sent by hand: refused as the server says.
    const keyed = heraldClient({ url: herald.origin, apiKey: herald.credentials.human_key, fetch: (input, init) => {
      const headers = new Headers(init?.headers)
      headers.set("herald-project", herald.credentials.project_id)
      return fetch(input, { ...init, headers })
    } })
    await expect(keyed.api.accounts.project()).rejects.toBeInstanceOf(InvalidRequest)
  })
})
