import { HttpApi } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AdminUrlGuard, bodyLimits, HeraldAdminApi, HeraldApi, RequestUrlGuard } from "../src/index.js"
import { startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const send = (body: NonNullable<RequestInit["body"]>, contentType: string | null, path = "/api/v1/posts", method = "POST") =>
  server.call(path, {
    method,
    key: server.tokens.human.key,
    body,
    headers: contentType === null ? {} : { "content-type": contentType }
  })

describe("no bad input produces a 500", () => {
  it("400 malformed_body for malformed JSON", async () => {
    const reply = await send("{\"caption\": ", "application/json")
    expect(reply.status).toBe(400)
    expect((await reply.json()).code).toBe("malformed_body")
  })

  it("400 malformed_body for bytes that are not UTF-8", async () => {
    const reply = await send(new Uint8Array([0x7b, 0x22, 0x63, 0xff, 0xfe, 0x22, 0x7d]), "application/json")
    expect(reply.status).toBe(400)
    expect((await reply.json()).error).toContain("UTF-8")
  })

  it("400 invalid_request naming every invalid field, nested ones by path", async () => {
    const reply = await server.call("/api/v1/posts", {
      method: "POST",
      key: server.tokens.human.key,
      json: { caption: 7, social_accounts: ["x:acme", 3], is_draft: "yes", platform_configurations: { x: { thread: "no" } }, surprise: true }
    })
    expect(reply.status).toBe(400)
    const body = await reply.json()
    expect(body.code).toBe("invalid_request")
    const fields = body.violations.map((v: { field: string }) => v.field)
    expect(fields).toEqual(expect.arrayContaining(["caption", "social_accounts[1]", "is_draft", "surprise"]))
    expect(fields.some((field: string) => field.startsWith("platform_configurations.x"))).toBe(true)
    for (const field of ["caption", "social_accounts[1]", "is_draft", "surprise"]) expect(body.error).toContain(field)
  })

  it("400 for platform_configurations, or one platform's entry, that is not an object, saying what is expected", async () => {
    for (const [configurations, field, message] of [
      [5, "platform_configurations", "Expected an object keyed by platform, actual 5"],
      [{ x: 5 }, "platform_configurations.x", "Expected an object of the platform's options, actual 5"],
      [{ bluesky: ["text"] }, "platform_configurations.bluesky", "Expected an object of the platform's options, actual [\"text\"]"]
    ] as const) {
      const reply = await server.call("/api/v1/posts", {
        method: "POST",
        key: server.tokens.human.key,
        json: { caption: "Hi", social_accounts: ["x:acme"], platform_configurations: configurations }
      })
      expect(reply.status).toBe(400)
      expect((await reply.json()).violations).toEqual([{ field, account: null, message }])
    }
  })

  it("400 for a JSON body that is not an object, and for an empty body", async () => {
    const array = await send("[1,2]", "application/json")
    expect(array.status).toBe(400)
    expect((await array.json()).violations[0].field).toBe("body")
    const empty = await send("", "application/json")
    expect(empty.status).toBe(400)
  })

  it("400 for a path id that is not a uuid, however long", async () => {
    for (const id of ["not-a-uuid", "a".repeat(101), "a".repeat(5000)]) {
      const reply = await server.call(`/api/v1/posts/${id}`, { method: "DELETE", key: server.tokens.human.key })
      expect(reply.status, `${id.length} characters`).toBe(400)
      expect((await reply.json()).violations[0].field).toBe("id")
    }
  })

  it("400 naming the path when its percent-escapes are not UTF-8; 404 for a well-formed path of no endpoint", async () => {
    for (const path of ["/api/v1/posts/%zz", "/api/v1/posts/%ED%A0%80", "/api/v1/posts/%FF/approve"]) {
      const reply = await server.call(path, { key: server.tokens.human.key })
      expect(reply.status, path).toBe(400)
      expect(await reply.json()).toEqual({
        error: "invalid request: path: is not percent-encoded UTF-8",
        code: "invalid_request",
        violations: [{ field: "path", account: null, message: "is not percent-encoded UTF-8" }]
      })
    }
    const nowhere = await server.call("/api/v1/nowhere%20at%20all", { key: server.tokens.human.key })
    expect(nowhere.status).toBe(404)
    expect((await nowhere.json()).code).toBe("not_found")
  })

  it("415 for a content type the endpoint does not take, or none, or another charset", async () => {
    for (const type of ["text/plain", "text/csv", "application/x-www-form-urlencoded", null, "application/json; charset=latin1"]) {
      const reply = await send("caption=hi", type)
      expect(reply.status, String(type)).toBe(415)
      expect((await reply.json()).code).toBe("unsupported_media_type")
    }
  })

  it("413 body_too_large above the JSON limit, announced or streamed", async () => {
    const big = JSON.stringify({ caption: "a".repeat(bodyLimits["application/json"]!), social_accounts: ["x:acme"] })
    const reply = await send(big, "application/json")
    expect(reply.status).toBe(413)
    expect((await reply.json()).code).toBe("body_too_large")
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(32))
        controller.close()
      }
    })
    const streamed = await server.call("/api/v1/guardrails/check", {
      method: "POST",
      key: server.tokens.human.key,
      body: chunks,
      headers: { "content-type": "application/json" },
      duplex: "half"
    } as RequestInit)
    expect(streamed.status).toBe(413)
  })

  it("404 not_found as JSON for an unknown path", async () => {
    const reply = await server.call("/api/v1/nothing-here", { key: server.tokens.human.key })
    expect(reply.status).toBe(404)
    expect(await reply.json()).toEqual({ error: "no such endpoint", code: "not_found" })
  })
})

const stored = (caption: string) => [...server.data.posts.values()].some(({ post }) => post.caption === caption)

describe("text that cannot be stored: 400 naming the field, nothing written", () => {
  it("a NUL or a lone surrogate anywhere in a body: caption, idempotency_key, nested texts, the approve reason", async () => {
    const create = async (body: Record<string, unknown>) => {
      const reply = await server.call("/api/v1/posts", { method: "POST", key: server.tokens.human.key, json: { social_accounts: ["x:acme"], ...body } })
      return { status: reply.status, body: await reply.json() }
    }
    const nul = await create({ caption: "hostile a\u0000b" })
    expect(nul).toEqual({
      status: 400,
      body: {
        error: "invalid request: caption: contains a NUL character (U+0000)",
        code: "invalid_request",
        violations: [{ field: "caption", account: null, message: "contains a NUL character (U+0000)" }]
      }
    })
    expect(stored("hostile a\u0000b")).toBe(false)
    const surrogate = await create({ caption: "hostile \ud800" })
    expect(surrogate.body.violations).toEqual([{ field: "caption", account: null, message: "contains an unpaired surrogate (U+D800)" }])
    expect(stored("hostile \ud800")).toBe(false)
    const nested = await create({
      caption: "fine",
      idempotency_key: "k\u0000",
      platform_configurations: { x: { thread: ["one", "two", "th\udc00ree"] } }
    })
    expect(nested.body.violations.map((v: { field: string }) => v.field)).toEqual(["idempotency_key", "platform_configurations.x.thread[2]"])
    const key = await create({ caption: "fine", platform_configurations: { "x\u0000": {} } })
    expect(key.body.violations).toEqual([
      { field: "platform_configurations", account: null, message: "has a key that contains a NUL character (U+0000)" }
    ])

    const held = await (await server.call("/api/v1/posts", { method: "POST", key: server.tokens.agent.key, json: { caption: "hold me", social_accounts: ["x:acme"] } })).json()
    expect(held.status).toBe("pending_approval")
    const approve = await server.call(`/api/v1/posts/${held.id}/approve`, {
      method: "POST",
      key: server.tokens.human.key,
      json: { decision: "reject", reason: "no\u0000" }
    })
    expect(approve.status).toBe(400)
    expect((await approve.json()).violations[0].field).toBe("reason")
    expect([...server.data.posts.values()].find(({ post }) => post.id === held.id)!.post.status).toBe("pending_approval")
  })

  it("escaped in the JSON text as it comes from any client", async () => {
    const reply = await send("{\"caption\":\"a\\u0000\",\"social_accounts\":[\"x:acme\"],\"is_draft\":true}", "application/json")
    expect(reply.status).toBe(400)
    expect((await reply.json()).violations[0]).toMatchObject({ field: "caption", message: "contains a NUL character (U+0000)" })
    const lone = await send("{\"caption\":\"guard\",\"social_accounts\":[\"x:\\udbff\"]}", "application/json", "/api/v1/guardrails/check")
    expect(lone.status).toBe(400)
  })

  it("in a query value or a path parameter, on any route, media's attach URL included", async () => {
    const human = { key: server.tokens.human.key }
    const cases: ReadonlyArray<[string, string, string]> = [
      ["GET", "/api/v1/posts?status=%00", "status"],
      ["GET", "/api/v1/posting-rules?account_ids=x%3Aacme,%00", "account_ids"],
      ["GET", "/api/v1/post-results?post_id=%00", "post_id"],
      ["DELETE", "/api/v1/posts/%00", "id"],
      ["POST", "/api/v1/post-results/%00/retry", "id"],
      ["POST", "/api/v1/media/attach/%00", "ticket"]
    ]
    for (const [method, path, field] of cases) {
      const reply = await server.call(path, { method, ...human })
      expect(reply.status, path).toBe(400)
      expect(await reply.json(), path).toMatchObject({
        code: "invalid_request",
        violations: [{ field, message: "contains a NUL character (U+0000)" }]
      })
    }
  })
})

describe("depth and long values", () => {
  const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels)

  it("400 body_too_deep past 64 levels, before any schema formats the value (no stack overflow)", async () => {
    const check = await send(`{"caption":${deep(5000)}}`, "application/json", "/api/v1/guardrails/check")
    expect(check.status).toBe(400)
    expect(await check.json()).toEqual({
      error: "the JSON body nests objects and arrays deeper than 64 levels (at caption)",
      code: "body_too_deep"
    })
    const draft = await send(`{"caption":"a","social_accounts":["x:acme"],"is_draft":${deep(10_000)}}`, "application/json")
    expect([draft.status, (await draft.json()).code]).toEqual([400, "body_too_deep"])
    // Within the limit the schema answers as for any wrong type.
    const within = await send(`{"caption":"a","social_accounts":["x:acme"],"is_draft":${deep(63)}}`, "application/json")
    expect(within.status).toBe(400)
    expect((await within.json()).violations).toMatchObject([{ field: "is_draft" }])
  })

  it("a value over its length is named by field and length, never repeated back", async () => {
    const caption = "c".repeat(10_001)
    const reply = await server.call("/api/v1/posts", { method: "POST", key: server.tokens.human.key, json: { caption, social_accounts: ["x:acme"] } })
    expect(reply.status).toBe(400)
    const text = await reply.text()
    expect(text).not.toContain("c".repeat(100))
    expect(text.length).toBeLessThan(1000)
    expect(JSON.parse(text).violations).toEqual([{
      field: "caption",
      account: null,
      message: "Expected a string at most 10000 character(s) long, actual a string of 10001 characters"
    }])
    const guard = await server.call("/api/v1/guardrails/check", { method: "POST", key: server.tokens.human.key, json: { caption: [caption] } })
    expect((await guard.text()).length).toBeLessThan(1000)
  })

  it("many invalid fields: every one in violations, the error sentence capped", async () => {
    // Unknown top-level fields refuse the body whole (a malformed row would fail alone, inside a 200).
    const surprises = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`surprise_${i}`, "s".repeat(500)]))
    const reply = await server.call("/api/v1/posts/bulk", { method: "POST", key: server.tokens.human.key, json: { rows: [{ caption: 7 }], ...surprises } })
    expect(reply.status).toBe(400)
    const body = await reply.json()
    expect(body.violations.length).toBeGreaterThanOrEqual(300)
    expect(body.error.length).toBeLessThan(1100)
    expect(body.error).toMatch(/and \d+ more \(see violations\)$/)
    expect(JSON.stringify(body)).not.toContain("s".repeat(100))
  })
})

describe("unknown query parameters: one rule on every endpoint", () => {
  it("400 naming the parameter, whether the endpoint takes parameters or none", async () => {
    const post = await (await server.call("/api/v1/posts", { method: "POST", key: server.tokens.human.key, json: { caption: "q", social_accounts: ["x:acme"], is_draft: true } })).json()
    const cases: ReadonlyArray<[string, string, string]> = [
      ["GET", "/api/v1/posts?pad=1", "it takes status, limit"],
      ["GET", "/api/v1/posting-rules?pad=1", "it takes account_ids"],
      ["GET", `/api/v1/post-results?post_id=${post.id}&pad=1`, "it takes post_id"],
      ["GET", "/api/v1/project?pad=1", "which takes none"],
      ["GET", "/api/v1/social-accounts?pad=1", "which takes none"],
      ["GET", "/api/v1/openapi.json?pad=1", "which takes none"],
      ["DELETE", `/api/v1/posts/${post.id}?pad=1`, "which takes none"]
    ]
    for (const [method, path, takes] of cases) {
      const reply = await server.call(path, { method, key: server.tokens.human.key })
      expect(reply.status, path).toBe(400)
      const body = await reply.json()
      expect(body.code, path).toBe("invalid_request")
      expect(body.violations, path).toEqual([{ field: "pad", account: null, message: expect.stringContaining(takes) }])
    }
    // Refused before anything happened: the post is still there.
    expect(server.data.posts.has(post.id)).toBe(true)
    // Declared parameters still work, and a key is still checked first.
    expect((await server.call("/api/v1/posts?status=draft&limit=5", { key: server.tokens.human.key })).status).toBe(200)
    expect((await server.call("/api/v1/project?pad=1", {})).status).toBe(401)
  })

  it("every endpoint of the REST and admin APIs carries the URL guard", () => {
    const missing: Array<string> = []
    for (const [api, guard] of [[HeraldApi, RequestUrlGuard], [HeraldAdminApi, AdminUrlGuard]] as const) {
      HttpApi.reflect(api as unknown as HttpApi.HttpApi.AnyWithProps, {
        onGroup: () => {},
        onEndpoint: ({ endpoint, middleware }) => {
          if (![...middleware].some((tag) => tag.key === guard.key)) missing.push(`${endpoint.method} ${endpoint.path}`)
        }
      })
    }
    expect(missing).toEqual([])
  })
})
