import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, startHerald, type TestHerald } from "../../app/test/TestHerald.js"
import { connect, refusalOf, resultOf } from "./McpClient.js"

const contractTools = [
  "list_accounts",
  "create_post",
  "bulk_post",
  "list_posts",
  "get_post",
  "get_delivery_receipt",
  "check_guardrails",
  "upload_media",
  "get_post_metrics",
  "get_insights",
  "get_top_posts",
  "get_best_times"
]

// The smallest PNG (1×1, transparent).
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

describe("the MCP connector over Streamable HTTP (official SDK client, real server on the embedded database)", () => {
  let herald: TestHerald
  let agent: Client
  let human: Client
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult
  const rest = async (path: string, init: { readonly token?: string; readonly json?: unknown; readonly method?: string } = {}) => {
    const reply = await herald.call(`/api/v1${path}`, { token: herald.credentials.agent_key, ...init })
    return { status: reply.status, body: await json(reply) }
  }
  const admin = (path: string, init: { readonly json?: unknown; readonly method?: string }) =>
    herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, { token: herald.credentials.admin_token, ...init })
  const newKey = async (fields: Record<string, unknown>) =>
    (await json(await admin("/keys", { method: "POST", json: { kind: "agent", ...fields } }))).key as string

  beforeAll(async () => {
    herald = await startHerald({ workers: false })
    // The demo keys' 60 requests a minute is less than this file makes; the limit itself is tested below on a key of its own.
    const keys = (await json(await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/keys`, { token: herald.credentials.admin_token }))).data as ReadonlyArray<{ readonly id: string }>
    for (const { id } of keys) await admin(`/keys/${id}`, { method: "PATCH", json: { rate_limit_per_minute: 6_000 } })
    agent = await connect(herald.origin, herald.credentials.agent_key)
    human = await connect(herald.origin, herald.credentials.human_key)
  })
  afterAll(async () => {
    await agent?.close()
    await human?.close()
    await herald?.close()
  })

  /** The headers the SDK client sends with a tools/call, for requests sent by hand. */
  const rawHeaders = () => ({
    authorization: `Bearer ${herald.credentials.agent_key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18"
  })

  it("lists exactly the contract's 11 tools and get_post, each with input and output schemas and truthful hints", async () => {
    const { tools } = await agent.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([...contractTools].sort())
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object")
      expect(tool.outputSchema?.type).toBe("object")
      expect(tool.description?.length).toBeGreaterThan(40)
    }
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))
    for (const name of ["list_accounts", "list_posts", "get_post", "get_delivery_receipt", "check_guardrails", "get_post_metrics", "get_insights", "get_top_posts", "get_best_times"]) {
      expect(hints[name]).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    }
    for (const name of ["create_post", "bulk_post", "upload_media"]) {
      expect(hints[name]).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false })
    }
    const create = tools.find((tool) => tool.name === "create_post")!
    expect(JSON.stringify(create.inputSchema)).toContain("social_accounts")
  })

  it("list_accounts answers GET /social-accounts's body", async () => {
    const result = resultOf(await call(agent, "list_accounts"))
    expect(result.data.length).toBe(9)
    expect(result).toEqual((await rest("/social-accounts")).body)
  })

  it("create_post by an agent in copilot mode is held: pending_approval, approval_url and the explanation, as a result", async () => {
    const args = { caption: "Held by copilot", social_accounts: ["x:herald_demo"], idempotency_key: "mcp-held-1" }
    const first = await call(agent, "create_post", args)
    const created = resultOf(first)
    expect(created).toMatchObject({ status: "pending_approval", repeated: false, approval_url: expect.stringContaining("http") })
    expect(created.message).toContain("copilot")
    expect(first.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("pending_approval") })
    // The same create again on both surfaces: the same post, the same body.
    const again = resultOf(await call(agent, "create_post", args))
    const viaRest = await rest("/posts", { method: "POST", json: args })
    expect(viaRest.status).toBe(200)
    expect(again).toEqual(viaRest.body)
    expect(again.id).toBe(created.id)
  })

  it("bulk_post answers POST /posts/bulk's body", async () => {
    const rows = [
      { caption: "Bulk one", accounts: ["bluesky:herald_demo"], idempotency_key: "mcp-bulk-1" },
      { caption: "Bulk two", accounts: ["nobody:here"] },
      // A malformed row fails alone there too (issue 26): not the whole call.
      { caption: "", accounts: ["bluesky:herald_demo"] }
    ]
    const first = resultOf(await call(agent, "bulk_post", { rows: [rows[0]] }))
    expect(first).toMatchObject({ created: 1, failed: 0 })
    const viaMcp = resultOf(await call(agent, "bulk_post", { rows }))
    expect(viaMcp).toMatchObject({ created: 1, failed: 2 })
    expect(viaMcp.results.map((row: { code: string }) => row.code)).toEqual(["repeated", "validation_failed", "validation_failed"])
    expect(viaMcp.results[1].violations[0].field).toBe("rows[1].accounts[0]")
    expect(viaMcp).toEqual((await rest("/posts/bulk", { method: "POST", json: { rows } })).body)
  })

  it("create_post refuses an unknown option as REST does (400 unknown_option naming the path and the account)", async () => {
    const body = { caption: "Hi", social_accounts: ["facebook:herald_demo"], platform_configurations: { facebook: { first_comment: "First!" } } }
    const viaMcp = refusalOf(await call(agent, "create_post", body))
    const viaRest = await rest("/posts", { method: "POST", json: body })
    expect(viaRest.status).toBe(400)
    expect(viaMcp).toEqual(viaRest.body)
    expect(viaMcp).toMatchObject({ code: "unknown_option", violations: [{ field: "platform_configurations.facebook.first_comment", account: "facebook:herald_demo" }] })
  })

  it("list_posts and get_delivery_receipt answer GET /posts and GET /post-results", async () => {
    const listed = resultOf(await call(agent, "list_posts", { status: ["pending_approval"], limit: 5 }))
    expect(listed.data.length).toBeGreaterThan(0)
    expect(listed).toEqual((await rest("/posts?status=pending_approval&limit=5")).body)
    const everything = resultOf(await call(agent, "list_posts"))
    expect(everything).toEqual((await rest("/posts")).body)
    const postId = listed.data[0].id
    const receipt = resultOf(await call(agent, "get_delivery_receipt", { post_id: postId }))
    expect(receipt.post_id).toBe(postId)
    expect(receipt).toEqual((await rest(`/post-results?post_id=${postId}`)).body)
    const missing = refusalOf(await call(agent, "get_delivery_receipt", { post_id: "00000000-0000-4000-8000-000000000000" }))
    expect(missing).toEqual((await rest("/post-results?post_id=00000000-0000-4000-8000-000000000000")).body)
    expect(missing.code).toBe("post_not_found")
  })

  it("get_post answers GET /posts/{id}: the list's row, and REST's refusal for an unknown id", async () => {
    const [row] = resultOf(await call(agent, "list_posts", { limit: 1 })).data
    const got = resultOf(await call(agent, "get_post", { id: row.id }))
    expect(got).toEqual((await rest(`/posts/${row.id}`)).body)
    expect(got).toEqual(row)
    const missing = refusalOf(await call(agent, "get_post", { id: "00000000-0000-4000-8000-000000000000" }))
    expect(missing).toEqual((await rest("/posts/00000000-0000-4000-8000-000000000000")).body)
    expect(missing.code).toBe("post_not_found")
  })

  it("check_guardrails answers POST /guardrails/check's verdict, and a blocked create_post is a tool error with the violations", async () => {
    expect((await admin("", { method: "PATCH", json: { guardrails: { banned_words: ["forbidden"] } } })).status).toBe(200)
    const verdict = resultOf(await call(agent, "check_guardrails", { caption: "This is forbidden" }))
    expect(verdict).toMatchObject({ allowed: false, rules_checked: expect.arrayContaining(["banned_words"]) })
    expect(verdict).toEqual((await rest("/guardrails/check", { method: "POST", json: { caption: "This is forbidden" } })).body)
    const body = { caption: "A forbidden caption", social_accounts: ["x:herald_demo"] }
    const blocked = refusalOf(await call(agent, "create_post", body))
    expect(blocked.code).toBe("guardrail_blocked")
    expect(blocked.violations).toEqual([expect.objectContaining({ rule: "banned_words" })])
    const viaRest = await rest("/posts", { method: "POST", json: body })
    expect(viaRest.status).toBe(422)
    expect(blocked).toEqual(viaRest.body)
  })

  it("bad input is a tool error naming the field (invalid_request), not a protocol error", async () => {
    const refused = refusalOf(await call(agent, "create_post", { caption: "x", social_accounts: [] }))
    expect(refused.code).toBe("invalid_request")
    expect(refused.violations.map((v: { field: string }) => v.field)).toContain("social_accounts")
    const unknownField = refusalOf(await call(agent, "list_posts", { limit: 500, colour: "red" }))
    expect(unknownField.violations.map((v: { field: string }) => v.field).sort()).toEqual(["colour", "limit"])
    const unresolved = refusalOf(await call(agent, "create_post", { caption: "x", social_accounts: ["x:nobody"] }))
    expect(unresolved).toEqual((await rest("/posts", { method: "POST", json: { caption: "x", social_accounts: ["x:nobody"] } })).body)
  })

  it("text that cannot be stored is refused as REST refuses it, and arguments nested too deep are body_too_deep", async () => {
    for (const caption of ["a\u0000b", "a\ud800b"]) {
      const body = { caption, social_accounts: ["x:herald_demo"], is_draft: true }
      const refused = refusalOf(await call(agent, "create_post", body))
      expect(refused.code).toBe("invalid_request")
      expect(refused.violations.map((v: { field: string }) => v.field)).toEqual(["caption"])
      expect(refused).toEqual((await rest("/posts", { method: "POST", json: body })).body)
    }
    let deep: unknown = "x"
    for (let level = 0; level < 100; level++) deep = [deep]
    const tooDeep = refusalOf(await call(agent, "check_guardrails", { caption: "fine", nested: deep }))
    expect(tooDeep.code).toBe("body_too_deep")
    expect(tooDeep.error).toContain("nested")
  })

  it("a key without posts:write gets missing_scope naming the scope, as REST's 403", async () => {
    const readOnly = await newKey({ scopes: ["posts:read"] })
    const client = await connect(herald.origin, readOnly)
    try {
      const refused = refusalOf(await call(client, "create_post", { caption: "x", social_accounts: ["x:herald_demo"] }))
      expect(refused.code).toBe("missing_scope")
      expect(refused.error).toContain("posts:write")
      expect(refusalOf(await call(client, "upload_media", { base64: png })).code).toBe("missing_scope")
      expect(resultOf(await call(client, "list_accounts")).data.length).toBe(9)
    } finally {
      await client.close()
    }
  })

  it("counts MCP requests in the key's rate limit: a tools/call past it is a rate_limited tool error with the seconds to wait", async () => {
    const limited = await newKey({ scopes: ["posts:read"], rate_limit_per_minute: 3 })
    const client = await connect(herald.origin, limited) // initialize and its notification: 2 requests
    try {
      resultOf(await call(client, "list_accounts")) // the 3rd
      const refused = refusalOf(await call(client, "list_accounts"))
      expect(refused).toMatchObject({ code: "rate_limited", retry_after: expect.any(Number) })
      expect(refused.retry_after).toBeGreaterThanOrEqual(1)
      expect((await rest("/social-accounts", { token: limited })).status).toBe(429)
    } finally {
      await client.close()
    }
  })

  it("the daily post cap is a daily_cap_reached tool error with retry_after", async () => {
    const capped = await newKey({ scopes: ["posts:read", "posts:write"], daily_post_cap: 1 })
    const client = await connect(herald.origin, capped)
    try {
      resultOf(await call(client, "create_post", { caption: "One a day", social_accounts: ["x:herald_demo"] }))
      const refused = refusalOf(await call(client, "create_post", { caption: "Two a day", social_accounts: ["x:herald_demo"] }))
      expect(refused).toMatchObject({ code: "daily_cap_reached", retry_after: expect.any(Number) })
    } finally {
      await client.close()
    }
  })

  it("upload_media stores base64 up to 5 MB and names the limit and the url alternative above it", async () => {
    const stored = resultOf(await call(agent, "upload_media", { base64: png, filename: "dot.png" }))
    expect(stored).toEqual({ id: expect.any(String), kind: "image" })
    const created = resultOf(await call(agent, "create_post", { caption: "With a dot", social_accounts: ["x:herald_demo"], media_ids: [stored.id] }))
    expect(created.status).toBe("pending_approval")
    const tooLarge = refusalOf(await call(agent, "upload_media", { base64: "A".repeat(((5 * 1024 * 1024) / 3) * 4 + 8) }))
    expect(tooLarge.code).toBe("media_too_large")
    expect(tooLarge.error).toContain("5 MB")
    expect(tooLarge.error).toContain("url")
    const unfetchable = refusalOf(await call(agent, "upload_media", { url: "https://127.0.0.1/a.png" }))
    expect(unfetchable).toEqual((await rest("/media", { method: "POST", json: { url: "https://127.0.0.1/a.png" } })).body)
    expect(unfetchable.code).toBe("media_unfetchable")
  })

  it("the analytics tools answer GET /metrics, /insights, /top-posts and /best-times's bodies", async () => {
    const [post] = resultOf(await call(agent, "list_posts", { limit: 1 })).data
    const metrics = resultOf(await call(agent, "get_post_metrics", { post_id: post.id }))
    expect(metrics.post_id).toBe(post.id)
    expect(metrics).toEqual((await rest(`/metrics?post_id=${post.id}`)).body)
    const withHistory = resultOf(await call(agent, "get_post_metrics", { post_id: post.id, history: true }))
    expect(withHistory).toEqual({ ...metrics, history: (await rest(`/metrics/history?post_id=${post.id}`)).body.data })
    const missing = refusalOf(await call(agent, "get_post_metrics", { post_id: "00000000-0000-4000-8000-000000000000" }))
    expect(missing).toEqual((await rest("/metrics?post_id=00000000-0000-4000-8000-000000000000")).body)
    expect(missing.code).toBe("post_not_found")
    expect(resultOf(await call(agent, "get_insights", { since_days: 7, platform: "x" })))
      .toEqual((await rest("/insights?since_days=7&platform=x")).body)
    expect(resultOf(await call(agent, "get_top_posts", { metric: "likes", limit: 5 })))
      .toEqual((await rest("/top-posts?metric=likes&limit=5")).body)
    expect(resultOf(await call(agent, "get_best_times", {}))).toEqual((await rest("/best-times")).body)
    expect(resultOf(await call(agent, "get_best_times", { account: "x:herald_demo" })))
      .toEqual((await rest("/best-times?account=x%3Aherald_demo")).body)
    const foreign = refusalOf(await call(agent, "get_best_times", { account: "x:nobody" }))
    expect(foreign).toEqual((await rest("/best-times?account=x%3Anobody")).body)
    expect(foreign.code).toBe("validation_failed")
    expect(refusalOf(await call(agent, "get_insights", { since_days: 0 })).code).toBe("invalid_request")
  })

  it("a refusal names the limit broken, as REST's does for the same input, never the field's description", async () => {
    expect(refusalOf(await call(agent, "list_posts", { limit: 0 }))).toEqual((await rest("/posts?limit=0")).body)
    expect(refusalOf(await call(agent, "get_post", { id: "nope" }))).toEqual((await rest("/posts/nope")).body)
    expect(refusalOf(await call(agent, "get_delivery_receipt", { post_id: "nope" }))).toEqual((await rest("/post-results?post_id=nope")).body)
    expect(refusalOf(await call(agent, "get_post_metrics", { post_id: "nope" }))).toEqual((await rest("/metrics?post_id=nope")).body)
    expect(refusalOf(await call(agent, "list_posts", { status: [] })).violations).toEqual([
      { field: "status", account: null, message: "Expected an array of at least 1 item(s), actual []" }
    ])
    const longAlt = { url: "https://example.com/a.png", alt_text: "a".repeat(1001) }
    const altRefusal = refusalOf(await call(agent, "upload_media", longAlt))
    expect(altRefusal).toEqual((await rest("/media", { method: "POST", json: longAlt })).body)
    expect(altRefusal.violations[0].message).toBe("Expected a string at most 1000 character(s) long, actual a string of 1001 characters")
    const longCaption = { caption: "a".repeat(10001) }
    expect(refusalOf(await call(agent, "check_guardrails", longCaption)))
      .toEqual((await rest("/guardrails/check", { method: "POST", json: longCaption })).body)
    expect(refusalOf(await call(agent, "upload_media", { url: "https://example.com/a.png", filename: "f".repeat(256) })).violations)
      .toEqual([{ field: "filename", account: null, message: "Expected a string at most 255 character(s) long, actual a string of 256 characters" }])
  })

  it("a plain tools/call answers what the SDK answers for the same call, and what it does not take still gets the SDK's protocol errors", async () => {
    const headers = rawHeaders()
    const send = async (body: unknown, extra: Record<string, string> = {}) => {
      const reply = await fetch(`${herald.origin}/api/mcp`, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) })
      return { status: reply.status, body: await json(reply) }
    }
    const listPosts = { jsonrpc: "2.0", id: "list-7", method: "tools/call", params: { name: "list_posts", arguments: { limit: 3 } } }
    // Twice: the second plain reply is made of the kept JSON of the first.
    const plain = await send(listPosts)
    expect(await send(listPosts)).toEqual(plain)
    expect(await send({ ...listPosts, id: 8 })).toEqual({ ...plain, body: { ...plain.body, id: 8 } })
    // The reply's length is counted in bytes: an id of several bytes a character still ends the JSON.
    expect(await send({ ...listPosts, id: "列-8" })).toEqual({ ...plain, body: { ...plain.body, id: "列-8" } })
    expect(plain.status).toBe(200)
    expect(plain.body.result.structuredContent).toEqual((await rest("/posts?limit=3")).body)
    // A batch of one is not plain: the SDK's transport and protocol server answer it.
    const throughSdk = await send([listPosts])
    expect(throughSdk.status).toBe(200)
    expect(Array.isArray(throughSdk.body) ? throughSdk.body[0] : throughSdk.body).toEqual(plain.body)
    const refused = { ...listPosts, params: { name: "check_guardrails", arguments: {} } }
    const refusedThroughSdk = await send([refused])
    expect((Array.isArray(refusedThroughSdk.body) ? refusedThroughSdk.body[0] : refusedThroughSdk.body)).toEqual((await send(refused)).body)
    const unknown = await send({ ...listPosts, params: { name: "no_such_tool", arguments: {} } })
    expect(unknown.body).toMatchObject({ id: "list-7", error: { code: -32602 } })
    // Params that are not a tool call's (arguments a string) are invalid params naming the field, as
    // JSON-RPC has it, not an internal error.
    const stringArguments = await send({ ...listPosts, params: { name: "list_posts", arguments: "limit=3" } })
    expect(stringArguments).toEqual({ status: unknown.status, body: { jsonrpc: "2.0", id: "list-7", error: { code: -32602, message: expect.stringMatching(/^invalid params: params\.arguments: /) } } })
    expect((await send(listPosts, { accept: "application/json" })).status).toBe(406)
    expect((await send(listPosts, { "mcp-protocol-version": "1999-01-01" })).status).toBe(400)
  })

  it("reads a body sent in pieces, and answers one that is not JSON with a parse error", async () => {
    const headers = rawHeaders()
    const text = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_posts", arguments: { limit: 2 } } })
    const pieces = [text.slice(0, 20), text.slice(20, 50), text.slice(50)]
    const streamed = await fetch(`${herald.origin}/api/mcp`, {
      method: "POST",
      headers,
      body: new ReadableStream({
        async pull(controller) {
          const piece = pieces.shift()
          if (piece === undefined) return controller.close()
          await new Promise((resolve) => setTimeout(resolve, 20))
          controller.enqueue(new TextEncoder().encode(piece))
        }
      }),
      duplex: "half"
    } as RequestInit)
    expect(streamed.status).toBe(200)
    expect((await json(streamed)).result.structuredContent).toEqual((await rest("/posts?limit=2")).body)
    const broken = await fetch(`${herald.origin}/api/mcp`, { method: "POST", headers, body: text.slice(0, -1) })
    expect(broken.status).toBe(400)
    expect(await broken.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
  })

  it("answers bytes that are not UTF-8 with a parse error, as REST answers malformed_body, and creates nothing", async () => {
    // The JSON text with its ÿ (C3 BF in UTF-8) replaced by a lone FF byte.
    const withLoneFf = (text: string) => {
      const utf8 = new TextEncoder().encode(text)
      const at = utf8.findIndex((byte, index) => byte === 0xc3 && utf8[index + 1] === 0xbf)
      return new Uint8Array([...utf8.subarray(0, at), 0xff, ...utf8.subarray(at + 2)])
    }
    const args = { caption: "not UTF-8 \u00ff", social_accounts: ["x:herald_demo"], is_draft: true }
    const request = { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "create_post", arguments: args } }
    const reply = await fetch(`${herald.origin}/api/mcp`, { method: "POST", headers: rawHeaders(), body: withLoneFf(JSON.stringify(request)) })
    expect(reply.status).toBe(400)
    expect(await reply.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
    const viaRest = await herald.call("/api/v1/posts", {
      token: herald.credentials.agent_key,
      method: "POST",
      body: withLoneFf(JSON.stringify(args)),
      headers: { "content-type": "application/json" }
    })
    expect(viaRest.status).toBe(400)
    expect(await json(viaRest)).toMatchObject({ code: "malformed_body" })
    const posts = (await rest("/posts?limit=100")).body.data as ReadonlyArray<{ readonly caption: string }>
    expect(posts.filter((post) => post.caption.startsWith("not UTF-8"))).toEqual([])
  })

  it("answers 401 without a valid key, and never repeats a key sent in the path", async () => {
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
    const none = await fetch(`${herald.origin}/api/mcp`, { method: "POST", headers, body: JSON.stringify(initialize) })
    expect(none.status).toBe(401)
    expect(await none.json()).toMatchObject({ code: "missing_api_key" })
    const wrong = `hk_agent_${"Z".repeat(40)}`
    for (const url of [`${herald.origin}/api/mcp/${wrong}`, `${herald.origin}/api/mcp/not-a-key-${wrong}`]) {
      const reply = await fetch(url, { method: "POST", headers, body: JSON.stringify(initialize) })
      expect(reply.status).toBe(401)
      const text = await reply.text()
      expect(JSON.parse(text).code).toBe("invalid_api_key")
      expect(text).not.toContain(wrong)
    }
    const bearerWrong = await fetch(`${herald.origin}/api/mcp`, { method: "POST", headers: { ...headers, authorization: `Bearer ${wrong}` }, body: "{}" })
    expect(bearerWrong.status).toBe(401)
  })

  it("takes the key in the path for clients that cannot set headers", async () => {
    const client = await connect(herald.origin, herald.credentials.agent_key, "path")
    try {
      expect(resultOf(await call(client, "list_accounts")).data.length).toBe(9)
    } finally {
      await client.close()
    }
  })
})
