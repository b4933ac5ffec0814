import { noGuardrails, Project } from "@herald/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
  // Project two (autopilot) bans a topic and asks for a tone, judged by the built-in classifier.
  const two = server.projects.two
  server.data.projects.set(two.id, new Project({ ...two, guardrails: { ...noGuardrails, banned_topics: ["politics", "astrology"], tone: "professional" } }))
})
afterAll(() => server.close())

const caption = "omg lol ngl vote for our senator in the election, polls open tomorrow lmao"

describe("one verdict everywhere (built-in classifier)", () => {
  it("POST /guardrails/check, create, bulk and PATCH name the same violations, with field and topic score", async () => {
    const key = server.tokens.other.key
    const check = await (await server.call("/api/v1/guardrails/check", { method: "POST", key, json: { caption } })).json()
    expect(check.allowed).toBe(false)
    expect(check.rules_checked).toEqual(["banned_topics", "tone"])
    expect(check.rules_skipped).toEqual(["banned_topics"])
    expect(check.skipped).toEqual([{ rule: "banned_topics", reason: expect.stringContaining("does not know the topic \"astrology\"") }])
    expect(check.violations.map((violation: { rule: string; field: string; topic?: string }) => [violation.rule, violation.field, violation.topic]))
      .toEqual([["banned_topics", "caption", "politics"], ["tone", "caption", undefined]])
    for (const violation of check.violations) expect(violation.score).toBeGreaterThanOrEqual(0.5)

    const created = await server.call("/api/v1/posts", { method: "POST", key, json: { caption, social_accounts: ["x:acme"] } })
    expect(created.status).toBe(422)
    expect((await created.json()).violations).toEqual(check.violations)

    const bulk = await server.call("/api/v1/posts/bulk", { method: "POST", key, json: { rows: [{ caption, accounts: ["x:acme"] }] } })
    expect((await bulk.json()).results[0]).toMatchObject({ code: "guardrail_blocked", violations: check.violations })

    const draft = await server.call("/api/v1/posts", {
      method: "POST",
      key,
      json: { caption: "Our bakery opens at seven tomorrow", social_accounts: ["x:acme"], scheduled_at: "2099-01-01T10:00:00Z" }
    })
    expect(draft.status).toBe(201)
    const patched = await server.call(`/api/v1/posts/${(await draft.json()).id}`, { method: "PATCH", key, json: { caption } })
    expect(patched.status).toBe(422)
    expect((await patched.json()).violations).toEqual(check.violations)
  })
})
