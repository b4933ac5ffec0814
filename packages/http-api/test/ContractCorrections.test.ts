/**
 * Issue 26, contract corrections 1 to 6, over real HTTP: each reproduced against main first (they
 * failed there), then fixed in the core.
 */
import { AccountId, type Platform, Project, SocialAccount } from "@herald/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Json, startServer, type TestServer } from "./TestServer.js"

let server: TestServer
let key: string
let accountNo = 0

/** Project two (autopilot) gets an account per platform under test, and a signature X weighs more than it counts. */
beforeAll(async () => {
  server = await startServer()
  key = server.tokens.other.key
  const two = server.projects.two
  server.data.projects.set(two.id, new Project({ ...two, signature: "🚀 Acme" }))
  const connect = (platform: Platform, username: string) => {
    const account = new SocialAccount({
      id: AccountId.make(`40000000-0000-4000-8000-${String(++accountNo).padStart(12, "0")}`),
      projectId: two.id,
      platform,
      username,
      route: "simulator",
      status: "active"
    })
    server.data.accounts.set(account.id, account)
  }
  connect("linkedin", "acme")
  connect("facebook", "acme")
  connect("bluesky", "acme")
  connect("x", "twin")
  connect("x", "twin")
  connect("bluesky", "solo")
  connect("linkedin", "solo")
})
afterAll(() => server.close())

const post = (json: unknown) => server.call("/api/v1/posts", { method: "POST", key, json })
const bulk = (rows: ReadonlyArray<unknown>) => server.call("/api/v1/posts/bulk", { method: "POST", key, json: { rows } })

describe("1. nothing prints nothing", () => {
  it("x and linkedin with no caption and no media: 400 naming each account; a blank caption is no caption", async () => {
    for (const body of [{ social_accounts: ["x:acme", "linkedin:acme"] }, { caption: "  \n", social_accounts: ["x:acme", "linkedin:acme"] }]) {
      const reply = await post(body)
      expect(reply.status).toBe(400)
      const refused = await reply.json()
      expect(refused.code).toBe("validation_failed")
      expect(refused.violations).toEqual([
        { field: "caption", account: "x:acme", message: expect.stringContaining("nothing to print") },
        { field: "caption", account: "linkedin:acme", message: expect.stringContaining("nothing to print") }
      ])
    }
  })

  it("a platform caption override alone is something to print", async () => {
    const reply = await post({ social_accounts: ["x:acme"], platform_configurations: { x: { caption: "Only on x" } } })
    expect(reply.status).toBe(201)
  })
})

describe("2. X counts as X does (twitter-text weighting)", () => {
  it("150 emoji are refused on x (300 weighted); a long URL counts 23", async () => {
    const emoji = await post({ caption: "😀".repeat(150), social_accounts: ["x:acme"], skip_signature: true })
    expect(emoji.status).toBe(400)
    expect((await emoji.json()).violations[0]).toMatchObject({ field: "caption", account: "x:acme", message: expect.stringContaining("prints 300") })
    // 250 + 1 + 23 = 274 as X counts; 251 + 120 characters as written.
    const link = await post({ caption: `${"a".repeat(250)} https://example.com/${"p".repeat(100)}`, social_accounts: ["x:acme"], skip_signature: true })
    expect(link.status).toBe(201)
  })

  it("GET /posting-rules and /social-accounts deduct the signature as X weighs it (🚀 costs 2)", async () => {
    const rules = (await (await server.call("/api/v1/posting-rules?account_ids=x:acme", { key })).json()).data[0]
    // "\n\n🚀 Acme": 2 + 2 + 5 = 9 as X counts (8 code points).
    expect(rules.limits.caption_chars_available).toBe(271)
    expect(rules.options.find((option: Json) => option.key === "caption").max_length).toBe(271)
    const accounts = (await (await server.call("/api/v1/social-accounts", { key })).json()).data
    expect(accounts.find((row: Json) => row.ref === "x:acme").limits.caption_chars_available).toBe(271)
  })
})

describe("3. unknown option keys", () => {
  it("facebook.first_comment: 400 unknown_option naming the path and the account", async () => {
    const reply = await post({ caption: "Hi", social_accounts: ["facebook:acme"], platform_configurations: { facebook: { first_comment: "First!" } } })
    expect(reply.status).toBe(400)
    const body = await reply.json()
    expect(body.code).toBe("unknown_option")
    expect(body.violations).toEqual([{
      field: "platform_configurations.facebook.first_comment",
      account: "facebook:acme",
      message: expect.stringContaining("GET /posting-rules")
    }])
    expect(body.error).toContain("platform_configurations.facebook.first_comment")
  })

  it("the same on PATCH", async () => {
    const draft = await (await post({ caption: "Hi", social_accounts: ["x:acme"], is_draft: true })).json()
    const patched = await server.call(`/api/v1/posts/${draft.id}`, { method: "PATCH", key, json: { platform_configurations: { x: { colour: "red" } } } })
    expect([patched.status, (await patched.json()).code]).toEqual([400, "unknown_option"])
  })

  it("every key GET /posting-rules lists for an account is a key it accepts (one source for both)", async () => {
    const rules = (await (await server.call("/api/v1/posting-rules?account_ids=facebook:acme,x:acme", { key })).json()).data
    expect(rules.map((rule: Json) => rule.options.map((option: Json) => option.key))).toEqual([
      ["caption", "placement", "link"],
      ["caption", "first_comment", "thread", "reply_settings", "poll"]
    ])
    const accepted = await post({
      caption: "Hi",
      social_accounts: ["facebook:acme", "x:acme"],
      platform_configurations: { facebook: { placement: "timeline" }, x: { first_comment: "one", thread: ["two"], reply_settings: "everyone" } }
    })
    expect(accepted.status).toBe(201)
  })
})

describe("4. bulk rows run independently", () => {
  it("a row with an empty caption or a wrong type fails alone; the others are created", async () => {
    const reply = await bulk([
      { caption: "bulk fine one", accounts: ["bluesky:acme"] },
      { caption: "", accounts: ["bluesky:acme"] },
      { caption: 5, accounts: ["bluesky:acme"], colour: "red" },
      "not a row",
      { caption: "bulk fine two", accounts: ["bluesky:acme"] }
    ])
    expect(reply.status).toBe(200)
    const body = await reply.json()
    expect(body).toMatchObject({ created: 2, failed: 3 })
    expect(body.results.map((row: Json) => row.code)).toEqual(["created", "validation_failed", "validation_failed", "validation_failed", "created"])
    expect(body.results[1].violations).toEqual([{ field: "rows[1].caption", account: null, message: expect.stringContaining("at least 1") }])
    expect(body.results[2].violations.map((v: Json) => v.field).sort()).toEqual(["rows[2].caption", "rows[2].colour"])
    expect(body.results[3].violations).toEqual([{ field: "rows[3]", account: null, message: 'Expected an object with caption and accounts, actual "not a row"' }])
  })
})

describe("5. idempotency after an edit", () => {
  it("a resend after PATCH answers the successor with repeated: true, and that id is live", async () => {
    const body = { caption: "Edit me later", social_accounts: ["bluesky:acme"], idempotency_key: "cc-5", is_draft: true }
    const first = await (await post(body)).json()
    const edited = await (await server.call(`/api/v1/posts/${first.id}`, { method: "PATCH", key, json: { caption: "Edited once" } })).json()
    const twice = await (await server.call(`/api/v1/posts/${edited.id}`, { method: "PATCH", key, json: { caption: "Edited twice" } })).json()
    const resend = await post(body)
    expect(resend.status).toBe(200)
    expect(await resend.json()).toMatchObject({ id: twice.id, repeated: true, status: "draft" })
    expect((await server.call(`/api/v1/post-results?post_id=${twice.id}`, { key })).status).toBe(200)
    // A bulk row (scheduled, so that it can still be edited) is answered the same way.
    const row = { caption: "Edit me later", accounts: ["bluesky:acme"], scheduled_at: "2099-01-01T00:00:00Z", idempotency_key: "cc-5b" }
    const bulkFirst = (await (await bulk([row])).json()).results[0].id
    const bulkEdited = await (await server.call(`/api/v1/posts/${bulkFirst}`, { method: "PATCH", key, json: { caption: "Edited in bulk" } })).json()
    expect(bulkEdited.supersedes).toBe(bulkFirst)
    const again = await (await bulk([row])).json()
    expect(again.results[0]).toMatchObject({ code: "repeated", repeated: true, id: bulkEdited.id })
  })
})

describe("6. error texts", () => {
  it("bulk rows name their own fields: rows[i].accounts[j], not social_accounts[j]", async () => {
    const body = await (await bulk([{ caption: "Hi", accounts: ["bluesky:acme", "nobody"] }])).json()
    expect(body.results[0].violations).toEqual([{ field: "rows[0].accounts[1]", account: "nobody", message: expect.any(String) }])
    expect(body.results[0].message).toContain("rows[0].accounts[1]")
    expect(body.results[0].message).not.toContain("social_accounts")
  })

  it("an ambiguous reference tells what to send instead of the form already sent", async () => {
    const qualified = await (await post({ caption: "Hi", social_accounts: ["x:twin"] })).json()
    const message: string = qualified.violations[0].message
    expect(message).toContain("send the account id")
    expect(message).not.toContain("platform:username")
    const bare = await (await post({ caption: "Hi", social_accounts: ["solo"] })).json()
    expect(bare.violations[0].message).toContain("send bluesky:solo or linkedin:solo")
  })

  it("the posting_cap guardrail detail says it is this key's cap", async () => {
    const capped = server.tokens.capped.key
    await server.call("/api/v1/posts", { method: "POST", key: capped, json: { caption: "One", social_accounts: ["x:acme"] } })
    const verdict = await (await server.call("/api/v1/guardrails/check", { method: "POST", key: capped, json: { caption: "Two" } })).json()
    expect(verdict.violations).toEqual([{ rule: "posting_cap", detail: "this key already created 1 post today; its daily cap is 1" }])
  })

  it("a union's refusal is one sentence per field", async () => {
    const draft = await (await post({ caption: "Hi", social_accounts: ["x:acme"], is_draft: true })).json()
    const schedule = await (await server.call(`/api/v1/posts/${draft.id}`, { method: "PATCH", key, json: { scheduled_at: 5 } })).json()
    expect(schedule.violations).toEqual([{ field: "scheduled_at", account: null, message: "Expected string or null, actual 5" }])
    const placement = await (await post({ caption: "Hi", social_accounts: ["facebook:acme"], platform_configurations: { facebook: { placement: "side" } } })).json()
    expect(placement.violations).toEqual([{
      field: "platform_configurations.facebook.placement",
      account: null,
      message: "Expected \"reels\", \"stories\" or \"timeline\", actual \"side\""
    }])
    expect(placement.error).toBe("invalid request: platform_configurations.facebook.placement: Expected \"reels\", \"stories\" or \"timeline\", actual \"side\"")
  })
})
