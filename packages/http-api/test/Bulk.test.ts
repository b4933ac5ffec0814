import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { crashCaption, type Json, startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const bulk = (key: string, body: NonNullable<RequestInit["body"]>, contentType?: string) =>
  server.call("/api/v1/posts/bulk", { method: "POST", key, body, ...(contentType === undefined ? {} : { headers: { "content-type": contentType } }) })

const postsWith = (caption: string) => [...server.data.posts.values()].filter(({ post }) => post.caption === caption)

describe("POST /posts/bulk", () => {
  it("JSON: one result per row; a crashing row reports internal_error and writes nothing; failures stay per row", async () => {
    const rows = [
      { caption: "bulk json one", accounts: ["x:acme"] },
      { caption: crashCaption, accounts: ["x:acme"] },
      { caption: "bulk forbidden", accounts: ["x:acme"] },
      { caption: "bulk unknown", accounts: ["nobody"] },
      { caption: "bulk json two", accounts: ["bluesky:acme"], idempotency_key: "bulk-k" }
    ]
    const reply = await bulk(server.tokens.agent.key, JSON.stringify({ rows }), "application/json")
    expect(reply.status).toBe(200)
    const body = await reply.json()
    expect(body).toMatchObject({ created: 2, failed: 3 })
    expect(body.results.map((r: Json) => r.code)).toEqual(["created", "internal_error", "guardrail_blocked", "validation_failed", "created"])
    expect(body.results[0]).toMatchObject({ row: 0, status: "pending_approval", approval_url: expect.stringContaining("/approve/") })
    expect(body.results[1]).toMatchObject({ row: 1, id: null, repeated: false })
    expect(body.results[1].message).not.toContain("fire")
    expect(postsWith(crashCaption)).toHaveLength(0)
    expect(body.results[2].violations[0].rule).toBe("banned_words")
    expect(body.results[3].violations[0].field).toBe("rows[3].accounts[0]")
    const again = await (await bulk(server.tokens.agent.key, JSON.stringify({ rows: [rows[4]] }), "application/json")).json()
    expect(again.results[0]).toMatchObject({ code: "repeated", repeated: true, id: body.results[4].id })
    const single = await server.call("/api/v1/posts", {
      method: "POST",
      key: server.tokens.agent.key,
      body: JSON.stringify({ caption: "bulk json two", social_accounts: ["bluesky:acme"], idempotency_key: "bulk-k" }),
      headers: { "content-type": "application/json" }
    })
    expect([single.status, await single.json()]).toMatchObject([200, { repeated: true, id: body.results[4].id }])
  })

  it("raw CSV with quoted fields and pipe-separated accounts", async () => {
    const csv = "caption,accounts,idempotency_key\n\"bulk csv, quoted\",x:acme|bluesky:acme,\nbulk csv two,x:acme,csv-k\n"
    const reply = await bulk(server.tokens.human.key, csv, "text/csv")
    expect(reply.status).toBe(200)
    const body = await reply.json()
    expect(body).toMatchObject({ created: 2, failed: 0 })
    expect(postsWith("bulk csv, quoted")[0]!.deliveries).toHaveLength(2)
  })

  it("multipart CSV in the file field, crashing row included", async () => {
    const form = new FormData()
    form.append("note", "ignored")
    form.append("file", new Blob([`caption,accounts\nbulk multipart,x:acme\n${crashCaption},x:acme\n`], { type: "text/csv" }), "posts.csv")
    const reply = await bulk(server.tokens.human.key, form)
    expect(reply.status).toBe(200)
    const body = await reply.json()
    expect(body.results.map((r: Json) => r.code)).toEqual(["created", "internal_error"])
    expect(postsWith("bulk multipart")).toHaveLength(1)
  })

  it("the daily cap fills mid-batch: 200, rows past it report daily_cap_reached", async () => {
    const rows = [{ caption: "cap one", accounts: ["x:acme"] }, { caption: "cap two", accounts: ["x:acme"] }]
    const reply = await bulk(server.tokens.capped.key, JSON.stringify({ rows }), "application/json")
    expect(reply.status).toBe(200)
    expect((await reply.json()).results.map((r: Json) => r.code)).toEqual(["created", "daily_cap_reached"])
  })

  it("400 for unparseable bodies: broken CSV naming the line, no rows, too many rows, unknown top-level fields, no file field", async () => {
    const brokenCsv = await bulk(server.tokens.human.key, "caption,accounts\n\"never closed,x:acme\n", "text/csv")
    expect(brokenCsv.status).toBe(400)
    expect(await brokenCsv.json()).toMatchObject({ code: "invalid_csv", violations: [{ field: "line 2" }] })
    const none = await bulk(server.tokens.human.key, JSON.stringify({ rows: [] }), "application/json")
    expect(none.status).toBe(400)
    expect((await none.json()).violations[0].field).toBe("rows")
    const many = Array.from({ length: 101 }, (_, i) => ({ caption: `r${i}`, accounts: ["x:acme"] }))
    expect((await bulk(server.tokens.human.key, JSON.stringify({ rows: many }), "application/json")).status).toBe(400)
    const extra = await bulk(server.tokens.human.key, JSON.stringify({ rows: [{ caption: "a", accounts: ["x:acme"] }], colour: 1 }), "application/json")
    expect([extra.status, (await extra.json()).violations[0].field]).toEqual([400, "colour"])
    // An unknown field inside a row fails that row alone.
    const inRow = await bulk(server.tokens.human.key, JSON.stringify({ rows: [{ caption: "a", accounts: ["x:acme"], colour: 1 }] }), "application/json")
    expect([inRow.status, (await inRow.json()).results[0].violations[0].field]).toEqual([200, "rows[0].colour"])
    const form = new FormData()
    form.append("csv", "caption,accounts\na,x:acme\n")
    expect((await bulk(server.tokens.human.key, form)).status).toBe(400)
    expect((await bulk(server.tokens.human.key, "caption,accounts\n\"x\"y,z\n", "text/csv")).status).toBe(400)
  })

  it("JSON and CSV: a row with text that cannot be stored fails on its own (validation_failed naming rows[i]); the others are created", async () => {
    const rows = [
      { caption: "bulk hostile one", accounts: ["x:acme"] },
      { caption: "bulk hostile \u0000", accounts: ["x:acme"] },
      { caption: "bulk hostile three", accounts: ["x:acme"], idempotency_key: "k\ud800" },
      { caption: "bulk hostile four", accounts: ["x:acme", "x:\udfff"] }
    ]
    const reply = await bulk(server.tokens.human.key, JSON.stringify({ rows }), "application/json")
    expect(reply.status).toBe(200)
    const body = await reply.json()
    expect(body).toMatchObject({ created: 1, failed: 3 })
    expect(body.results.map((r: Json) => r.code)).toEqual(["created", "validation_failed", "validation_failed", "validation_failed"])
    expect(body.results.slice(1).map((r: Json) => r.violations)).toEqual([
      [{ field: "rows[1].caption", account: null, message: "contains a NUL character (U+0000)" }],
      [{ field: "rows[2].idempotency_key", account: null, message: "contains an unpaired surrogate (U+D800)" }],
      [{ field: "rows[3].accounts[1]", account: null, message: "contains an unpaired surrogate (U+DFFF)" }]
    ])
    expect(rows.map((row) => postsWith(row.caption).length)).toEqual([1, 0, 0, 0])

    const csv = await bulk(server.tokens.human.key, "caption,accounts\nbulk csv fine,x:acme\nbulk csv \u0000,x:acme\n", "text/csv")
    const csvBody = await csv.json()
    expect(csvBody.results.map((r: Json) => [r.code, r.violations?.[0]?.field])).toEqual([["created", undefined], ["validation_failed", "rows[1].caption"]])
    expect([postsWith("bulk csv fine").length, postsWith("bulk csv \u0000").length]).toEqual([1, 0])
  })

  it("a body nested past 64 levels is refused whole (400 body_too_deep)", async () => {
    const deep = "[".repeat(100) + "]".repeat(100)
    const reply = await bulk(server.tokens.human.key, `{"rows":[{"caption":${deep},"accounts":["x:acme"]}]}`, "application/json")
    expect([reply.status, (await reply.json()).code]).toEqual([400, "body_too_deep"])
  })

  it("403 without posts:write; 415 for another content type", async () => {
    const reader = await bulk(server.tokens.reader.key, "caption,accounts\na,x:acme\n", "text/csv")
    expect(reader.status).toBe(403)
    expect((await reader.json()).error).toContain("posts:write")
    expect((await bulk(server.tokens.human.key, "rows", "text/plain")).status).toBe(415)
  })
})
