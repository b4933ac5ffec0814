import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiKeyPattern, displayPrefix, generateApiKey, hashApiKey, makeWebHandler } from "../src/index.js"
import { startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

describe("API keys", () => {
  it("have a readable prefix per kind, 40 base62 characters, and hash to 64 hex characters", () => {
    const agent = generateApiKey("agent")
    const human = generateApiKey("human")
    expect(agent).toMatch(/^hk_agent_[0-9A-Za-z]{40}$/)
    expect(human).toMatch(/^hk_human_[0-9A-Za-z]{40}$/)
    expect(apiKeyPattern.test(agent)).toBe(true)
    expect(generateApiKey("agent")).not.toBe(agent)
    expect(hashApiKey(agent)).toMatch(/^[0-9a-f]{64}$/)
    expect(hashApiKey(agent)).toBe(hashApiKey(agent))
    expect(displayPrefix(agent)).toBe(agent.slice(0, "hk_agent_".length + 4))
  })
})

describe("authentication", () => {
  const cases: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
    ["no Authorization header", {}, "missing_api_key"],
    ["an empty bearer", { authorization: "Bearer " }, "missing_api_key"],
    ["another scheme", { authorization: "Basic dXNlcjpwYXNz" }, "invalid_api_key"],
    ["a malformed key", { authorization: "Bearer not-a-key" }, "invalid_api_key"],
    ["an unknown well-formed key", { authorization: `Bearer ${generateApiKey("human")}` }, "invalid_api_key"]
  ]
  for (const [name, headers, code] of cases) {
    it(`401 ${code} for ${name}, without rate-limit headers`, async () => {
      const reply = await server.call("/api/v1/posts", { headers })
      expect(reply.status).toBe(401)
      expect((await reply.json()).code).toBe(code)
      expect(reply.headers.get("x-ratelimit-limit")).toBeNull()
    })
  }

  it("401 revoked_api_key for a revoked key", async () => {
    const reply = await server.call("/api/v1/project", { key: server.tokens.revoked.key })
    expect(reply.status).toBe(401)
    expect(await reply.json()).toEqual({ error: "this API key was revoked", code: "revoked_api_key" })
  })

  it("touches last_used on an accepted key", async () => {
    expect(server.keys.lastUsedAt(server.tokens.reader.id)).toBeNull()
    await server.call("/api/v1/social-accounts", { key: server.tokens.reader.key })
    expect(server.keys.lastUsedAt(server.tokens.reader.id)).not.toBeNull()
  })

  it("answers 401 before looking at the body", async () => {
    const reply = await server.call("/api/v1/posts", { method: "POST", body: "{broken", headers: { "content-type": "application/json" } })
    expect(reply.status).toBe(401)
  })

  it("GET /openapi.json needs no key", async () => {
    const reply = await server.call("/api/v1/openapi.json")
    expect(reply.status).toBe(200)
    expect((await reply.json()).openapi).toBe("3.1.0")
  })
})

describe("rate limit", () => {
  it("counts every request per key, puts X-RateLimit-* on success and error replies, then 429 rate_limited with Retry-After", async () => {
    const key = server.tokens.limited.key
    const first = await server.call("/api/v1/project", { key })
    expect(first.status).toBe(200)
    expect(first.headers.get("x-ratelimit-limit")).toBe("2")
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1")
    const reset = Number(first.headers.get("x-ratelimit-reset"))
    const now = Date.now() / 1000
    expect(reset).toBeGreaterThan(now)
    expect(reset).toBeLessThanOrEqual(Math.ceil(now) + 60)
    // An error reply (404) still counts and still carries the headers.
    const missing = await server.call("/api/v1/post-results?post_id=00000000-0000-4000-8000-00000000ffff", { key })
    expect(missing.status).toBe(404)
    expect(missing.headers.get("x-ratelimit-remaining")).toBe("0")
    const limited = await server.call("/api/v1/project", { key })
    expect(limited.status).toBe(429)
    const body = await limited.json()
    expect(body.code).toBe("rate_limited")
    expect(limited.headers.get("x-ratelimit-limit")).toBe("2")
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0")
    expect(limited.headers.get("x-ratelimit-reset")).toBe(String(reset))
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(body.retry_after).toBe(retryAfter)
    // Another key is not affected.
    expect((await server.call("/api/v1/project", { key: server.tokens.human.key })).status).toBe(200)
  })
})

describe("makeWebHandler", () => {
  it("answers fetch-style requests on the same services", async () => {
    const { dispose, handler } = makeWebHandler(server.services)
    const reply = await handler(new Request("http://herald.test/api/v1/project", { headers: { authorization: `Bearer ${server.tokens.reader.key}` } }))
    expect(reply.status).toBe(200)
    expect(((await reply.json()) as { id: string }).id).toBe(server.projects.one.id)
    expect((await handler(new Request("http://herald.test/api/v1/project"))).status).toBe(401)
    await dispose()
  })
})

describe("connection issues", () => {
  it("GET and POST /connection-issues need posts:read: 401 without a key, 403 naming the scope without it, 200 with it", async () => {
    for (const method of ["GET", "POST"]) {
      const anonymous = await server.call("/api/v1/connection-issues", { method })
      expect(anonymous.status).toBe(401)
      const writer = await server.call("/api/v1/connection-issues", { method, key: server.tokens.writer.key })
      expect(writer.status).toBe(403)
      const refusal = await writer.json()
      expect(refusal.code).toBe("missing_scope")
      expect(refusal.error).toContain("posts:read")
    }
    const listed = await server.call("/api/v1/connection-issues", { key: server.tokens.reader.key })
    expect(listed.status).toBe(200)
    expect(await listed.json()).toEqual({ data: [] })
    // No probe serves these accounts' route here: nothing is probed, nothing is found.
    const checked = await server.call("/api/v1/connection-issues", { method: "POST", key: server.tokens.reader.key })
    expect(checked.status).toBe(200)
    const report = await checked.json()
    expect(report.data).toEqual([])
    expect(report.summary).toEqual({ checked: 0, healthy: 0, issues: {} })
  })
})
