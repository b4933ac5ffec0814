import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, receiptWhen, startHerald, type TestHerald } from "./TestHerald.js"

/** The reference server with its workers, on the embedded database: the switch and provenance over HTTP and MCP. */
let herald: TestHerald
beforeAll(async () => {
  herald = await startHerald()
})
afterAll(() => herald.close())

const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
  herald.call(`/admin/v1${path}`, { token: herald.credentials.admin_token, ...init })

/** A project with an x account, a named agent key and a named human key. */
const project = async (name: string) => {
  const created = await json(await admin("/projects", { method: "POST", json: { name, approval: "copilot" } }))
  await admin(`/projects/${created.id}/accounts`, { method: "POST", json: { platform: "x", username: "acme" } })
  const key = async (kind: "agent" | "human", keyName: string) =>
    (await json(await admin(`/projects/${created.id}/keys`, {
      method: "POST",
      json: { name: keyName, kind, scopes: kind === "agent" ? ["posts:read", "posts:write"] : ["posts:read", "posts:write", "posts:approve"] }
    }))).key as string
  return { id: created.id as string, agent: await key("agent", "copy-bot"), human: await key("human", "Dana") }
}

describe("the emergency stop over the admin API", () => {
  it("holds a project's posts (shown in GET /project and /health, said in the create's message) and publishes them on resume", async () => {
    const acme = await project("Stopped")
    const paused = await admin(`/projects/${acme.id}/publishing/pause`, { method: "POST", json: { reason: "brand review" } })
    expect(paused.status).toBe(200)
    expect(await json(paused)).toMatchObject({ scope: "project", project_id: acme.id, reason: "brand review" })
    expect((await json(await herald.call("/api/v1/project", { token: acme.human }))).publishing).toMatchObject({
      paused: true,
      scope: "project",
      reason: "brand review"
    })
    expect((await json(await herald.call("/health"))).publishing).toMatchObject({ paused: false, projects_paused: 1 })

    const created = await herald.call("/api/v1/posts", { method: "POST", token: acme.human, json: { caption: "Held by the stop", social_accounts: ["x:acme"] } })
    expect(created.status).toBe(201)
    const post = await json(created)
    expect(post.message).toContain("Publishing is paused for this project")
    // The workers run, woken by the new post (a delivery they took would be publishing by now):
    // a moment on, still waiting.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const held = await json(await herald.call(`/api/v1/post-results?post_id=${post.id}`, { token: acme.human }))
    expect(held.data.map((row: { status: string }) => row.status)).toEqual(["queued"])

    const resumed = await json(await admin(`/projects/${acme.id}/publishing/resume`, { method: "POST" }))
    expect(resumed).toMatchObject({ lifted: { scope: "project", reason: "brand review" }, in_force: [] })
    const receipt = await receiptWhen({ ...herald, credentials: { ...herald.credentials, human_key: acme.human } }, post.id, (r) => r.post_status === "posted")
    expect(receipt.post_status).toBe("posted")
    expect((await json(await herald.call("/api/v1/project", { token: acme.human }))).publishing).toEqual({
      paused: false,
      scope: null,
      paused_at: null,
      reason: null
    })
  }, 60_000)

  it("the instance's stop shows on /health and in every project, and 404s a project that does not exist", async () => {
    const acme = await project("Instance")
    const paused = await json(await admin("/publishing/pause", { method: "POST", json: {} }))
    expect(paused).toMatchObject({ scope: "instance", project_id: null, reason: null })
    const health = await json(await herald.call("/health"))
    expect(health.publishing).toMatchObject({ paused: true, paused_at: paused.paused_at })
    expect(health.status).not.toBe("unavailable")
    expect((await json(await herald.call("/api/v1/project", { token: acme.agent }))).publishing).toMatchObject({ paused: true, scope: "instance" })
    expect((await json(await admin("/publishing"))).data).toContainEqual(paused)
    expect((await admin("/projects/00000000-0000-4000-8000-000000000000/publishing/pause", { method: "POST", json: {} })).status).toBe(404)
    const resumed = await json(await admin("/publishing/resume", { method: "POST" }))
    expect(resumed.lifted).toEqual(paused)
    expect((await json(await herald.call("/health"))).publishing).toMatchObject({ paused: false })
  })
})

describe("provenance over REST and MCP", () => {
  it("a post an agent created through MCP, edited through REST, approved by a human: each says who and how", async () => {
    const acme = await project("Provenance")
    const client = new Client({ name: "herald-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${herald.origin}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${acme.agent}` } }
    }))
    const made = await client.callTool({ name: "create_post", arguments: { caption: "Written by a bot", social_accounts: ["x:acme"] } })
    const created = made.structuredContent as { id: string; status: string }
    expect(created.status).toBe("pending_approval")
    const listed = await client.callTool({ name: "list_posts", arguments: {} })
    const row = (listed.structuredContent as { data: Array<{ id: string; provenance: unknown }> }).data.find((r) => r.id === created.id)!
    expect(row.provenance).toMatchObject({ created_by: { key_name: "copy-bot", kind: "agent", surface: "mcp" }, edited_by: null, decided_by: null })
    await client.close()

    const edited = await json(await herald.call(`/api/v1/posts/${created.id}`, { method: "PATCH", token: acme.agent, json: { caption: "Written by a bot, fixed" } }))
    const approved = await herald.call(`/api/v1/posts/${edited.id}/approve`, { method: "POST", token: acme.human, json: { decision: "approve" } })
    expect(approved.status).toBe(200)
    const receipt = await json(await herald.call(`/api/v1/post-results?post_id=${edited.id}`, { token: acme.human }))
    expect(receipt.provenance).toMatchObject({
      created_by: { key_name: "copy-bot", kind: "agent", surface: "mcp" },
      edited_by: { key_name: "copy-bot", kind: "agent", surface: "rest" },
      decided_by: { outcome: "approved", via: "api_key", key_name: "Dana", surface: "rest" }
    })
  }, 60_000)
})
