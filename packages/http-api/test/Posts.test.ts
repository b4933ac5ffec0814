import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { crashCaption, startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const post = (key: string, json: unknown) => server.call("/api/v1/posts", { method: "POST", key, json })

describe("POST /posts", () => {
  it("201: an agent's post is held in copilot mode with the core's message and an approval_url", async () => {
    const reply = await post(server.tokens.agent.key, { caption: "Hello", social_accounts: ["x:acme"] })
    expect(reply.status).toBe(201)
    const body = await reply.json()
    expect(body).toMatchObject({ status: "pending_approval", repeated: false })
    expect(body.message).toContain("copilot mode")
    expect(body.approval_url).toMatch(/^http:\/\/herald\.test\/approve\//)
  })

  it("201 then 200 repeated: true for the same idempotency_key; 400 idempotency_key_reused for another body", async () => {
    const body = { caption: "Once", social_accounts: ["bluesky:acme"], idempotency_key: "k-1" }
    const first = await post(server.tokens.human.key, body)
    expect(first.status).toBe(201)
    const again = await post(server.tokens.human.key, body)
    expect(again.status).toBe(200)
    const repeated = await again.json()
    expect(repeated).toMatchObject({ id: (await first.json()).id, repeated: true })
    const reused = await post(server.tokens.human.key, { ...body, caption: "Twice" })
    expect(reused.status).toBe(400)
    expect(await reused.json()).toMatchObject({ code: "idempotency_key_reused" })
  })

  it("the Idempotency-Key header is the same key as the body's idempotency_key: a resend by either is repeated", async () => {
    const body = { caption: "Header once", social_accounts: ["bluesky:acme"] }
    const withHeader = (json: unknown, key: string) =>
      server.call("/api/v1/posts", { method: "POST", key: server.tokens.human.key, json, headers: { "Idempotency-Key": key } })
    const first = await withHeader(body, "hk-1")
    expect(first.status).toBe(201)
    const { id } = await first.json()
    const again = await withHeader(body, "hk-1")
    expect([again.status, (await again.json()).id]).toEqual([200, id])
    const inBody = await post(server.tokens.human.key, { ...body, idempotency_key: "hk-1" })
    expect([inBody.status, (await inBody.json()).repeated]).toEqual([200, true])
    const both = await withHeader({ ...body, idempotency_key: "hk-1" }, "hk-1")
    expect([both.status, (await both.json()).id]).toEqual([200, id])
    const reused = await withHeader({ ...body, caption: "Header twice" }, "hk-1")
    expect([reused.status, (await reused.json()).code]).toEqual([400, "idempotency_key_reused"])
  })

  it("400 invalid_request naming both when the Idempotency-Key header and the body's idempotency_key differ, or a header key out of bounds", async () => {
    const before = server.data.posts.size
    const send = (key: string, json: unknown = { caption: "Differ", social_accounts: ["bluesky:acme"] }) =>
      server.call("/api/v1/posts", { method: "POST", key: server.tokens.human.key, json, headers: { "Idempotency-Key": key } })
    const differ = await send("hk-a", { caption: "Differ", social_accounts: ["bluesky:acme"], idempotency_key: "hk-b" })
    expect(differ.status).toBe(400)
    const body = await differ.json()
    expect(body.code).toBe("invalid_request")
    expect(body.violations).toEqual([
      { field: "Idempotency-Key", account: null, message: "differs from the body's idempotency_key; send one key, or the same in both" },
      { field: "idempotency_key", account: null, message: "differs from the Idempotency-Key header" }
    ])
    const refusals = await Promise.all(["", "k".repeat(256), "caf\u00e9"].map(async (key) => {
      const reply = await send(key)
      const { code, violations } = await reply.json()
      return [reply.status, code, violations]
    }))
    const refusal = (message: string) => [400, "invalid_request", [{ field: "Idempotency-Key", account: null, message }]]
    expect(refusals).toEqual([
      refusal("Expected a string at least 1 character(s) long, actual \"\""),
      refusal("Expected a string at most 255 character(s) long, actual a string of 256 characters"),
      refusal("holds a character outside printable ASCII; send such a key as the body's idempotency_key")
    ])
    expect((await send("k".repeat(255))).status).toBe(201)
    expect(server.data.posts.size).toBe(before + 1)
  })

  it("POST /posts/bulk refuses the Idempotency-Key header (each row has its own key): 400 naming it, no row written", async () => {
    const before = server.data.posts.size
    const reply = await server.call("/api/v1/posts/bulk", {
      method: "POST",
      key: server.tokens.human.key,
      json: { rows: [{ caption: "Bulk with a header", accounts: ["bluesky:acme"] }] },
      headers: { "Idempotency-Key": "bulk-header" }
    })
    expect([reply.status, await reply.json()]).toEqual([400, {
      error: "invalid request: Idempotency-Key: is not read on POST /posts/bulk: give each row its own idempotency_key (a column in CSV)",
      code: "invalid_request",
      violations: [{
        field: "Idempotency-Key",
        account: null,
        message: "is not read on POST /posts/bulk: give each row its own idempotency_key (a column in CSV)"
      }]
    }])
    expect(server.data.posts.size).toBe(before)
  })

  it("400 validation_failed names the account that does not resolve", async () => {
    const reply = await post(server.tokens.human.key, { caption: "Hi", social_accounts: ["x:acme", "mastodon:nobody"] })
    expect(reply.status).toBe(400)
    const body = await reply.json()
    expect(body.code).toBe("validation_failed")
    expect(body.violations).toEqual([
      expect.objectContaining({ field: "social_accounts[1]", account: "mastodon:nobody" })
    ])
  })

  it("403 missing posts:write names the scope; 403 no_active_plan on an inactive project", async () => {
    const reader = await post(server.tokens.reader.key, { caption: "Hi", social_accounts: ["x:acme"] })
    expect(reader.status).toBe(403)
    expect(await reader.json()).toEqual({ error: "this key lacks the posts:write scope", code: "missing_scope" })
    const inactive = await post(server.tokens.inactive.key, { caption: "Hi", social_accounts: ["x:acme"] })
    expect(inactive.status).toBe(403)
    expect(await inactive.json()).toMatchObject({ code: "no_active_plan", error: expect.stringContaining("no active plan") })
  })

  it("422 guardrail_blocked carries violations { rule, detail }", async () => {
    const reply = await post(server.tokens.human.key, { caption: "This is forbidden talk", social_accounts: ["x:acme"] })
    expect(reply.status).toBe(422)
    const body = await reply.json()
    expect(body.code).toBe("guardrail_blocked")
    expect(body.violations).toEqual([{
      rule: "banned_words",
      detail: expect.stringContaining("forbidden"),
      field: "caption",
      span: { start: 8, end: 17, text: "forbidden" }
    }])
  })

  it("429 daily_cap_reached with Retry-After until the project's midnight, and rate-limit headers", async () => {
    expect((await post(server.tokens.capped.key, { caption: "One", social_accounts: ["x:acme"] })).status).toBe(201)
    const reply = await post(server.tokens.capped.key, { caption: "Two", social_accounts: ["x:acme"] })
    expect(reply.status).toBe(429)
    const body = await reply.json()
    expect(body.code).toBe("daily_cap_reached")
    const retryAfter = Number(reply.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(25 * 3600)
    expect(body.retry_after).toBe(retryAfter)
    expect(reply.headers.get("x-ratelimit-remaining")).not.toBeNull()
  })

  it("500 internal_error without details when something inside Herald dies", async () => {
    const reply = await post(server.tokens.human.key, { caption: crashCaption, social_accounts: ["x:acme"] })
    expect(reply.status).toBe(500)
    const text = await reply.text()
    expect(JSON.parse(text)).toEqual({ error: "internal error", code: "internal_error" })
    expect(text).not.toContain("fire")
  })
})

describe("GET /posts", () => {
  it("200 lists newest first with the filter that applied", async () => {
    const reply = await server.call("/api/v1/posts?status=pending_approval,draft&limit=2", { key: server.tokens.reader.key })
    expect(reply.status).toBe(200)
    const body = await reply.json()
    expect(body.filter).toEqual({ status: ["pending_approval", "draft"], limit: 2 })
    expect(body.data.length).toBeGreaterThan(0)
    for (const row of body.data) expect(row.status).toBe("pending_approval")
    expect(body.data[0].approval_url).toMatch(/approve/)
  })

  it("400 on an unknown status, a limit outside 1..100 and an unknown parameter, naming each", async () => {
    for (const [query, field] of [["status=published", "status"], ["limit=0", "limit"], ["limit=101", "limit"], ["limit=ten", "limit"], ["colour=red", "colour"]]) {
      const reply = await server.call(`/api/v1/posts?${query}`, { key: server.tokens.reader.key })
      expect(reply.status, query).toBe(400)
      const body = await reply.json()
      expect(body.code).toBe("invalid_request")
      expect(body.violations.map((v: { field: string }) => v.field.replace(/\[\d+\]$/, ""))).toContain(field)
    }
  })

  it("400 on a limit not written in decimal digits, never read as another number", async () => {
    for (const limit of ["0x10", "0b11", "1e1", "%2B5", "10.0", "%2010"]) {
      const reply = await server.call(`/api/v1/posts?limit=${limit}`, { key: server.tokens.reader.key })
      expect(reply.status, limit).toBe(400)
      const body = await reply.json()
      expect(body.code).toBe("invalid_request")
      expect(body.violations, limit).toEqual([
        { field: "limit", account: null, message: `Expected an integer in decimal digits, actual ${JSON.stringify(decodeURIComponent(limit))}` }
      ])
    }
    const padded = await server.call("/api/v1/posts?limit=05", { key: server.tokens.reader.key })
    expect((await padded.json()).filter.limit).toBe(5)
    const long = await server.call(`/api/v1/posts?limit=${"0".repeat(30)}7`, { key: server.tokens.reader.key })
    expect((await long.json()).filter.limit).toBe(7)
  })

  it("403 for a key without posts:read", async () => {
    const reply = await server.call("/api/v1/posts", { key: server.tokens.writer.key })
    expect(reply.status).toBe(403)
    expect((await reply.json()).error).toContain("posts:read")
  })
})

describe("GET /posts/{id}", () => {
  const create = async (key: string) => (await (await post(key, { caption: "Read me", social_accounts: ["x:acme", "bluesky:acme"] })).json()).id as string
  const listRow = async (key: string, id: string) =>
    ((await (await server.call("/api/v1/posts?limit=100", { key })).json()).data as Array<{ id: string }>).find((row) => row.id === id)

  it("200 answers the very row GET /posts lists for the post, held (with approval_url) or sent", async () => {
    for (const author of [server.tokens.agent.key, server.tokens.human.key]) {
      const id = await create(author)
      const reply = await server.call(`/api/v1/posts/${id}`, { key: server.tokens.reader.key })
      expect(reply.status).toBe(200)
      const row = await reply.json()
      expect(row.id).toBe(id)
      expect(row.targets).toHaveLength(2)
      expect(row).toEqual(await listRow(server.tokens.reader.key, id))
    }
    const held = await (await server.call(`/api/v1/posts/${await create(server.tokens.agent.key)}`, { key: server.tokens.reader.key })).json()
    expect(held).toMatchObject({ status: "pending_approval", approval_url: expect.stringMatching(/\/approve\//) })
  })

  it("404 post_not_found for another project's post and an unknown id; 403 without posts:read", async () => {
    const id = await create(server.tokens.human.key)
    const foreign = await server.call(`/api/v1/posts/${id}`, { key: server.tokens.other.key })
    expect(foreign.status).toBe(404)
    expect((await foreign.json()).code).toBe("post_not_found")
    const unknown = await server.call("/api/v1/posts/00000000-0000-4000-8000-000000000000", { key: server.tokens.reader.key })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).code).toBe("post_not_found")
    const writer = await server.call(`/api/v1/posts/${id}`, { key: server.tokens.writer.key })
    expect(writer.status).toBe(403)
    expect((await writer.json()).error).toContain("posts:read")
  })

  it("400 invalid_request naming id for an id that is not a UUID", async () => {
    const reply = await server.call("/api/v1/posts/not-a-post", { key: server.tokens.reader.key })
    expect(reply.status).toBe(400)
    const body = await reply.json()
    expect(body.code).toBe("invalid_request")
    expect(body.violations.map((v: { field: string }) => v.field)).toContain("id")
  })

  it("404 post_superseded naming the successor for an edited post; the successor answers 200 with supersedes", async () => {
    const id = await create(server.tokens.agent.key)
    const edited = await (await server.call(`/api/v1/posts/${id}`, { method: "PATCH", key: server.tokens.agent.key, json: { caption: "Read me, edited" } })).json()
    const old = await server.call(`/api/v1/posts/${id}`, { key: server.tokens.reader.key })
    expect(old.status).toBe(404)
    const body = await old.json()
    expect(body.code).toBe("post_superseded")
    expect(body.error).toContain(edited.id)
    const successor = await server.call(`/api/v1/posts/${edited.id}`, { key: server.tokens.reader.key })
    expect(successor.status).toBe(200)
    expect(await successor.json()).toMatchObject({ id: edited.id, supersedes: id, caption: "Read me, edited" })
  })
})

describe("PATCH, DELETE, approve", () => {
  const create = async (key: string, body: Record<string, unknown> = {}) => {
    const reply = await post(key, { caption: "Draft me", social_accounts: ["x:acme"], ...body })
    return (await reply.json()).id as string
  }

  it("PATCH 200 answers the NEW id; the old id then answers 404 post_superseded", async () => {
    const id = await create(server.tokens.agent.key)
    const reply = await server.call(`/api/v1/posts/${id}`, { method: "PATCH", key: server.tokens.agent.key, json: { caption: "Edited" } })
    expect(reply.status).toBe(200)
    const body = await reply.json()
    expect(body).toMatchObject({ supersedes: id, status: "pending_approval" })
    expect(body.id).not.toBe(id)
    expect(body.approval_url).toMatch(/approve/)
    const stale = await server.call(`/api/v1/posts/${id}`, { method: "PATCH", key: server.tokens.agent.key, json: { caption: "Again" } })
    expect(stale.status).toBe(404)
    expect((await stale.json()).code).toBe("post_superseded")
  })

  it("PATCH 400 naming the body when it names no field to change; the post keeps its id", async () => {
    const id = await create(server.tokens.agent.key)
    for (const json of [{}, { caption: undefined }]) {
      const reply = await server.call(`/api/v1/posts/${id}`, { method: "PATCH", key: server.tokens.agent.key, json })
      expect(reply.status).toBe(400)
      expect(await reply.json()).toMatchObject({
        code: "validation_failed",
        error: "body: names no field to change (one of caption, media_ids, scheduled_at, platform_configurations, is_draft)"
      })
    }
    const kept = await server.call(`/api/v1/posts/${id}`, { key: server.tokens.agent.key })
    expect(kept.status).toBe(200)
    expect(await kept.json()).toMatchObject({ id, status: "pending_approval" })
  })

  it("PATCH 400 on a post that went out, 422 on banned words, 404 across projects, 403 without posts:write", async () => {
    const sent = await create(server.tokens.human.key)
    const notEditable = await server.call(`/api/v1/posts/${sent}`, { method: "PATCH", key: server.tokens.human.key, json: { caption: "x" } })
    expect(notEditable.status).toBe(400)
    expect((await notEditable.json()).code).toBe("post_not_editable")
    const held = await create(server.tokens.agent.key)
    const blocked = await server.call(`/api/v1/posts/${held}`, { method: "PATCH", key: server.tokens.agent.key, json: { caption: "forbidden" } })
    expect(blocked.status).toBe(422)
    const foreign = await server.call(`/api/v1/posts/${held}`, { method: "PATCH", key: server.tokens.other.key, json: { caption: "x" } })
    expect(foreign.status).toBe(404)
    expect((await foreign.json()).code).toBe("post_not_found")
    const reader = await server.call(`/api/v1/posts/${held}`, { method: "PATCH", key: server.tokens.reader.key, json: { caption: "x" } })
    expect(reader.status).toBe(403)
  })

  it("approve: 403 for agent keys and keys without posts:approve, 200 for a human, then 409; 404 across projects", async () => {
    const id = await create(server.tokens.agent.key)
    const path = `/api/v1/posts/${id}/approve`
    const agent = await server.call(path, { method: "POST", key: server.tokens.agent.key, json: { decision: "approve" } })
    expect(agent.status).toBe(403)
    expect((await agent.json()).code).toBe("agent_cannot_approve")
    const writer = await server.call(path, { method: "POST", key: server.tokens.writer.key, json: { decision: "approve" } })
    expect(writer.status).toBe(403)
    expect((await writer.json()).error).toContain("posts:approve")
    const foreign = await server.call(path, { method: "POST", key: server.tokens.other.key, json: { decision: "approve" } })
    expect(foreign.status).toBe(404)
    const approved = await server.call(path, { method: "POST", key: server.tokens.human.key, json: { decision: "reject", reason: "off brand" } })
    expect(approved.status).toBe(200)
    expect(await approved.json()).toEqual({ id, status: "rejected", decision: "reject", reason: "off brand" })
    const again = await server.call(path, { method: "POST", key: server.tokens.human.key, json: { decision: "approve" } })
    expect(again.status).toBe(409)
    const rows = await (await server.call("/api/v1/posts?status=rejected", { key: server.tokens.human.key })).json()
    expect(rows.data.find((row: { id: string }) => row.id === id).rejectionReason).toBe("off brand")
  })

  it("DELETE: 200 deleted, 200 unscheduled for a scheduled post, 409 once sent, 404 across projects, 403 without posts:write", async () => {
    const held = await create(server.tokens.agent.key)
    const deleted = await server.call(`/api/v1/posts/${held}`, { method: "DELETE", key: server.tokens.agent.key })
    expect(deleted.status).toBe(200)
    expect(await deleted.json()).toEqual({ id: held, deleted: true, unscheduled: false, status: "pending_approval" })
    const scheduled = await create(server.tokens.human.key, { scheduled_at: "2099-01-01T10:00:00Z" })
    const unscheduled = await server.call(`/api/v1/posts/${scheduled}`, { method: "DELETE", key: server.tokens.human.key })
    expect(unscheduled.status).toBe(200)
    expect(await unscheduled.json()).toMatchObject({ deleted: false, unscheduled: true })
    const sent = await create(server.tokens.human.key)
    const conflict = await server.call(`/api/v1/posts/${sent}`, { method: "DELETE", key: server.tokens.human.key })
    expect(conflict.status).toBe(409)
    const foreign = await server.call(`/api/v1/posts/${sent}`, { method: "DELETE", key: server.tokens.other.key })
    expect(foreign.status).toBe(404)
    const reader = await server.call(`/api/v1/posts/${sent}`, { method: "DELETE", key: server.tokens.reader.key })
    expect(reader.status).toBe(403)
  })
})

describe("post-results, retry, takedown", () => {
  it("GET /post-results 200 with approval_url; 404 across projects; 400 without post_id", async () => {
    const id = (await (await post(server.tokens.human.key, { caption: "Out", social_accounts: ["x:acme", "bluesky:acme"] })).json()).id
    const reply = await server.call(`/api/v1/post-results?post_id=${id}`, { key: server.tokens.reader.key })
    expect(reply.status).toBe(200)
    const receipt = await reply.json()
    expect(receipt).toMatchObject({ post_id: id, approval_url: expect.stringContaining("/approve/") })
    expect(receipt.data).toHaveLength(2)
    expect((await server.call(`/api/v1/post-results?post_id=${id}`, { key: server.tokens.other.key })).status).toBe(404)
    expect((await server.call("/api/v1/post-results", { key: server.tokens.reader.key })).status).toBe(400)
  })

  it("retry: 409 on a delivery that is not failed, 404 across projects, 403 without posts:write", async () => {
    const id = (await (await post(server.tokens.human.key, { caption: "Retry", social_accounts: ["x:acme"] })).json()).id
    const receipt = await (await server.call(`/api/v1/post-results?post_id=${id}`, { key: server.tokens.human.key })).json()
    const delivery = receipt.data[0].id
    const conflict = await server.call(`/api/v1/post-results/${delivery}/retry`, { method: "POST", key: server.tokens.human.key })
    expect(conflict.status).toBe(409)
    expect((await conflict.json()).code).toBe("delivery_not_failed")
    expect((await server.call(`/api/v1/post-results/${delivery}/retry`, { method: "POST", key: server.tokens.other.key })).status).toBe(404)
    expect((await server.call(`/api/v1/post-results/${delivery}/retry`, { method: "POST", key: server.tokens.reader.key })).status).toBe(403)
  })

  it("takedown: 409 delivery_never_went_out, 404 across projects, 403 without posts:write", async () => {
    const id = (await (await post(server.tokens.human.key, { caption: "Take", social_accounts: ["x:acme"] })).json()).id
    const receipt = await (await server.call(`/api/v1/post-results?post_id=${id}`, { key: server.tokens.human.key })).json()
    const delivery = receipt.data[0].id
    const conflict = await server.call(`/api/v1/post-results/${delivery}/takedown`, { method: "POST", key: server.tokens.human.key })
    expect(conflict.status).toBe(409)
    expect((await conflict.json()).code).toBe("delivery_never_went_out")
    expect((await server.call(`/api/v1/post-results/${delivery}/takedown`, { method: "POST", key: server.tokens.other.key })).status).toBe(404)
    expect((await server.call(`/api/v1/post-results/${delivery}/takedown`, { method: "POST", key: server.tokens.reader.key })).status).toBe(403)
  })
})

describe("accounts, posting rules, project, guardrails", () => {
  it("GET /social-accounts lists only this project's accounts", async () => {
    const body = await (await server.call("/api/v1/social-accounts", { key: server.tokens.reader.key })).json()
    expect(body.data.map((row: { ref: string }) => row.ref)).toEqual(["x:acme", "bluesky:acme", "pinterest:acme"])
    expect(body.data[0].limits.caption_chars_available).toBe(280 - "\n\n— Acme".length)
  })

  it("GET /posting-rules: every account, or the listed ones; boards null for pinterest; 400 naming an unknown one", async () => {
    const all = await (await server.call("/api/v1/posting-rules", { key: server.tokens.reader.key })).json()
    expect(all.data).toHaveLength(3)
    expect(all.data.find((rules: { platform: string }) => rules.platform === "pinterest").boards).toBeNull()
    const chosen = await (await server.call(`/api/v1/posting-rules?account_ids=${server.accounts.x.id},bluesky:acme`, { key: server.tokens.reader.key })).json()
    expect(chosen.data.map((rules: { ref: string }) => rules.ref)).toEqual(["x:acme", "bluesky:acme"])
    expect("boards" in chosen.data[0]).toBe(false)
    const unknown = await server.call(`/api/v1/posting-rules?account_ids=${server.accounts.otherX.id}`, { key: server.tokens.reader.key })
    expect(unknown.status).toBe(400)
    expect((await unknown.json()).violations[0].field).toBe("account_ids[0]")
    // Empty items are skipped, and a refused item is named by its place in the list as sent.
    const gapped = await server.call("/api/v1/posting-rules?account_ids=x:acme,,bluesky:acme,x:nobody", { key: server.tokens.reader.key })
    expect(gapped.status).toBe(400)
    expect((await gapped.json()).violations).toEqual([
      { field: "account_ids[3]", account: "x:nobody", message: expect.stringContaining("x:nobody") }
    ])
  })

  it("GET /project: rules and posts_today; 403 without posts:read", async () => {
    const body = await (await server.call("/api/v1/project", { key: server.tokens.capped.key })).json()
    expect(body).toMatchObject({
      id: server.projects.one.id,
      approval: "copilot",
      signature: "— Acme",
      guardrails: { banned_words: ["forbidden"] },
      posts_today: { used: 1, cap: 1, remaining: 0 }
    })
    const writer = await server.call("/api/v1/project", { key: server.tokens.writer.key })
    expect(writer.status).toBe(403)
    expect((await writer.json()).error).toContain("posts:read")
  })

  it("POST /guardrails/check: the verdict; 400 without a caption", async () => {
    const reply = await server.call("/api/v1/guardrails/check", { method: "POST", key: server.tokens.reader.key, json: { caption: "forbidden words" } })
    expect(reply.status).toBe(200)
    expect(await reply.json()).toMatchObject({ allowed: false, rules_checked: ["banned_words"] })
    const missing = await server.call("/api/v1/guardrails/check", { method: "POST", key: server.tokens.reader.key, json: {} })
    expect(missing.status).toBe(400)
    expect((await missing.json()).violations[0].field).toBe("caption")
  })
})
