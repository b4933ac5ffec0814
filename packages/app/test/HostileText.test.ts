import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"
import { json, startHerald, type TestHerald } from "./TestHerald.js"

/**
 * Text PostgreSQL cannot hold (a NUL, half a surrogate pair) sent to every kind of entry of the
 * reference server on a real database: each answers 400 naming the field, nothing is written, and
 * a bulk request stores its other rows. Runs on the embedded database and, with DATABASE_URL, on
 * PostgreSQL.
 */
const hostileSuite = (name: string, databaseOf: () => Promise<{ readonly url?: string; readonly drop: () => Promise<unknown> }>) =>
  describe(name, () => {
    let herald: TestHerald
    let drop: () => Promise<unknown>
    beforeAll(async () => {
      const database = await databaseOf()
      drop = database.drop
      herald = await startHerald({ workers: false, ...(database.url === undefined ? {} : { databaseUrl: database.url }) })
    }, 60_000)
    afterAll(async () => {
      await herald?.close()
      await drop?.()
    })

    const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
      herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })
    const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
      herald.call(`/admin/v1${path}`, { token: herald.credentials.admin_token, ...init })
    const refusal = async (reply: Response) => ({ status: reply.status, ...(await json(reply)) })
    const captions = async () => (await json(await api("/posts?limit=100"))).data.map((row: { caption: string }) => row.caption)

    it("REST: caption, idempotency_key, a platform text, the approve reason, a media ticket; path and query values", async () => {
      const create = (body: Record<string, unknown>) =>
        api("/posts", { method: "POST", json: { social_accounts: ["x:herald_demo"], is_draft: true, ...body } })
      for (const [body, field] of [
        [{ caption: "a\u0000b" }, "caption"],
        [{ caption: "a\ud800b" }, "caption"],
        [{ caption: "fine", idempotency_key: "k\u0000" }, "idempotency_key"],
        [{ caption: "fine", platform_configurations: { x: { thread: ["one", "\udc00"] } } }, "platform_configurations.x.thread[1]"]
      ] as const) {
        expect(await refusal(await create(body))).toMatchObject({ status: 400, code: "invalid_request", violations: [{ field }] })
      }
      expect(await captions()).toEqual([])

      const held = await json(await api("/posts", {
        method: "POST",
        token: herald.credentials.agent_key,
        json: { caption: "held for a person", social_accounts: ["x:herald_demo"] }
      }))
      const reason = await api(`/posts/${held.id}/approve`, { method: "POST", json: { decision: "reject", reason: "\u0000" } })
      expect(await refusal(reason)).toMatchObject({ status: 400, violations: [{ field: "reason" }] })
      const receipt = await json(await api(`/post-results?post_id=${held.id}`))
      expect(receipt.post_status).toBe("pending_approval")

      const ticket = await api("/media", { method: "POST", json: { ticket: "upl_\u0000" } })
      expect(await refusal(ticket)).toMatchObject({ status: 400, violations: [{ field: "ticket" }] })
      const attach = await herald.call("/api/v1/media/attach/%00", { method: "POST", body: new FormData() })
      expect(await refusal(attach)).toMatchObject({ status: 400, violations: [{ field: "ticket" }] })
      expect(await refusal(await api("/posting-rules?account_ids=%00"))).toMatchObject({ status: 400, violations: [{ field: "account_ids" }] })
    })

    it("bulk CSV and JSON: the row with a NUL fails alone with validation_failed; the others are stored", async () => {
      const csv = await api("/posts/bulk", {
        method: "POST",
        headers: { "content-type": "text/csv" },
        body: "caption,accounts\nbulk before,x:herald_demo\nbulk \u0000 row,x:herald_demo\nbulk after,bluesky:herald_demo\n"
      })
      expect(csv.status).toBe(200)
      const result = await json(csv)
      expect(result.results.map((row: { code: string }) => row.code)).toEqual(["created", "validation_failed", "created"])
      expect(result.results[1].violations).toEqual([{ field: "rows[1].caption", account: null, message: "contains a NUL character (U+0000)" }])
      const rows = { rows: [{ caption: "bulk json", accounts: ["x:herald_demo"] }, { caption: "bulk json", accounts: ["x:herald_demo"], idempotency_key: "\ud800" }] }
      const bulkJson = await json(await api("/posts/bulk", { method: "POST", json: rows }))
      expect(bulkJson.results.map((row: { code: string }) => row.code)).toEqual(["created", "validation_failed"])
      expect((await captions()).filter((caption: string) => caption.startsWith("bulk")).sort()).toEqual(["bulk after", "bulk before", "bulk json"])
    })

    it("admin: project name (a lone surrogate is refused, never stored as U+FFFD), signature, key name, username, webhook URL", async () => {
      const project = herald.credentials.project_id
      const before = await json(await admin("/projects"))
      const named = await refusal(await admin("/projects", { method: "POST", json: { name: "Acme \ud800" } }))
      expect(named).toMatchObject({
        status: 400,
        code: "invalid_request",
        violations: [{ field: "name", account: null, message: "contains an unpaired surrogate (U+D800)" }]
      })
      expect(await refusal(await admin(`/projects/${project}`, { method: "PATCH", json: { signature: "\u0000" } })))
        .toMatchObject({ status: 400, violations: [{ field: "signature" }] })
      expect(await json(await admin("/projects"))).toEqual(before)

      const cases: ReadonlyArray<[string, Record<string, unknown>, string]> = [
        ["keys", { name: "k\u0000", kind: "agent", scopes: ["posts:read"] }, "name"],
        ["accounts", { platform: "x", username: "a\u0000b" }, "username"],
        ["webhooks", { url: "https://hooks.example.com/\u0000", kinds: ["post.published"] }, "url"]
      ]
      for (const [resource, body, field] of cases) {
        const listed = await json(await admin(`/projects/${project}/${resource}`))
        expect(await refusal(await admin(`/projects/${project}/${resource}`, { method: "POST", json: body })), resource)
          .toMatchObject({ status: 400, violations: [{ field }] })
        expect(await json(await admin(`/projects/${project}/${resource}`)), resource).toEqual(listed)
      }
      expect(await refusal(await admin(`/projects/${project}/webhooks/%00/deliveries?event_id=%00`))).toMatchObject({ status: 400 })
      expect(await refusal(await admin(`/projects/${project}/keys?pad=1`))).toMatchObject({ status: 400, violations: [{ field: "pad" }] })
    })
  })

hostileSuite("on the embedded database", async () => ({ drop: async () => {} }))

describe.skipIf(databaseUrl === "")("on PostgreSQL (skipped without DATABASE_URL)", () => {
  hostileSuite("a throwaway schema", () => throwawaySchema("herald_hostile"))
})
