import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { approvalToken, readApprovalToken } from "../src/index.js"
import { approvalPath, approvalSecret, startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const hold = async (caption: string) => {
  const reply = await server.call("/api/v1/posts", {
    method: "POST",
    key: server.tokens.agent.key,
    json: { caption, social_accounts: ["x:acme", "bluesky:acme"] }
  })
  const body = await reply.json()
  return { id: body.id as string, path: approvalPath(body.approval_url) }
}

const decide = (path: string, fields: Record<string, string>) =>
  server.call(path, { method: "POST", body: new URLSearchParams(fields), headers: { "content-type": "application/x-www-form-urlencoded" } })

describe("approval links", () => {
  it("a token reads back only with its secret and unchanged", () => {
    const grant = { projectId: server.projects.one.id, postId: server.projects.two.id as never, version: 3 }
    const token = approvalToken(approvalSecret, grant)
    expect(token).toMatch(/^[A-Za-z0-9_-]{91}$/)
    expect(Option.getOrThrow(readApprovalToken(approvalSecret, token))).toEqual(grant)
    expect(readApprovalToken(Redacted.make("other secret"), token)._tag).toBe("None")
    const bumped = Buffer.from(token, "base64url")
    bumped.writeUInt32BE(4, 32)
    expect(readApprovalToken(approvalSecret, bumped.toString("base64url"))._tag).toBe("None")
  })
})

describe("GET /approve/{token}", () => {
  it("shows the post as each target would print it, escaped, with Approve and Reject", async () => {
    const { path } = await hold("<script>alert('x')</script> & hello")
    const reply = await server.call(path)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toContain("text/html")
    const html = await reply.text()
    expect(html).not.toContain("<script>alert")
    expect(html).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; hello\n\n— Acme")
    expect(html).toContain("Project 1 &lt;&amp;&gt;")
    expect(html).toContain(">X <span class=\"handle\">@acme</span>")
    expect(html).toContain(">Bluesky <span class=\"handle\">@acme</span>")
    expect(html).toContain("value=\"approve\"")
    expect(html).toContain("value=\"reject\"")
  })

  it("404 for a forged token, one signed with another secret, or garbage", async () => {
    const { id, path } = await hold("forge me")
    const forged = path.slice(0, -4) + (path.endsWith("AAAA") ? "BBBB" : "AAAA")
    const other = `/approve/${approvalToken(Redacted.make("not the secret"), { projectId: server.projects.one.id, postId: id as never, version: 1 })}`
    for (const bad of [forged, other, "/approve/nonsense"]) {
      expect((await server.call(bad)).status, bad).toBe(404)
      expect((await decide(bad, { decision: "approve" })).status, bad).toBe(404)
    }
  })
})

describe("POST /approve/{token}", () => {
  it("approves through the link once; afterwards the page shows the outcome without buttons and a POST answers 409", async () => {
    const { id, path } = await hold("approve me")
    const reply = await decide(path, { decision: "approve" })
    expect(reply.status).toBe(200)
    expect(server.data.posts.get(id)!.post.decision).toMatchObject({ outcome: "approved", via: "approval_link" })
    const after = await (await server.call(path)).text()
    expect(after).not.toContain("value=\"approve\"")
    expect(after).toContain("This post was approved")
    const again = await decide(path, { decision: "reject" })
    expect(again.status).toBe(409)
    expect(server.data.posts.get(id)!.post.decision?.outcome).toBe("approved")
  })

  it("rejects with a reason; a link of another post cannot decide this one", async () => {
    const first = await hold("reject me")
    const second = await hold("leave me")
    const reply = await decide(first.path, { decision: "reject", reason: "not on brand" })
    expect(reply.status).toBe(200)
    expect(server.data.posts.get(first.id)!.post.decision).toMatchObject({ outcome: "rejected", reason: "not on brand" })
    // Swapping the post id inside a valid token breaks its MAC.
    const token = Buffer.from(first.path.split("/").pop()!, "base64url")
    Buffer.from(second.id.replaceAll("-", ""), "hex").copy(token, 16)
    const moved = `/approve/${token.toString("base64url")}`
    expect(moved).not.toBe(first.path)
    expect((await decide(moved, { decision: "approve" })).status).toBe(404)
    expect(server.data.posts.get(second.id)!.post.status).toBe("pending_approval")
  })

  it("a link minted before a change of version cannot decide, even when the post is held again", async () => {
    const { id } = await hold("version me")
    const record = server.data.posts.get(id)!
    const stale = `/approve/${approvalToken(approvalSecret, { projectId: record.post.projectId, postId: record.post.id, version: record.post.version })}`
    server.data.remember({ ...record, post: record.post.with({ version: record.post.version + 1 }) })
    const page = await (await server.call(stale)).text()
    expect(page).not.toContain("value=\"approve\"")
    expect((await decide(stale, { decision: "approve" })).status).toBe(409)
    expect(server.data.posts.get(id)!.post.status).toBe("pending_approval")
  })

  // (A form cannot carry a lone surrogate: URL encoding writes it as U+FFFD.)
  it("400 for a reason that cannot be stored; the post stays held", async () => {
    const { id, path } = await hold("hostile reason")
    const nul = await decide(path, { decision: "reject", reason: "no\u0000" })
    expect(nul.status).toBe(400)
    expect(await nul.text()).toContain("The reason contains a NUL character (U+0000)")
    expect(server.data.posts.get(id)!.post.status).toBe("pending_approval")
  })

  it("400 for a decision that is neither approve nor reject", async () => {
    const { path } = await hold("undecided")
    expect((await decide(path, { decision: "maybe" })).status).toBe(400)
  })
})
