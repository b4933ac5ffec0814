import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, startHerald, type TestHerald } from "./TestHerald.js"

/** The session cookie a sign-in reply set, as the browser would send it back. */
const cookieOf = (reply: Response) => {
  const header = reply.headers.get("set-cookie") ?? ""
  return header.split(";")[0]!
}

describe("dashboard sessions", () => {
  let herald: TestHerald
  beforeAll(async () => {
    herald = await startHerald({ workers: false })
  })
  afterAll(() => herald.close())

  const signIn = (credential: unknown, headers: Record<string, string> = {}) =>
    herald.call("/dashboard/session", { method: "POST", token: null, json: { credential }, headers })

  it("refuses an agent key with 403, an unknown one with 401 and a missing one with 400 naming the field", async () => {
    const agent = await signIn(herald.credentials.agent_key)
    expect(agent.status).toBe(403)
    expect(await json(agent)).toMatchObject({ code: "session_not_allowed", error: expect.stringMatching(/agent keys cannot sign in/) })
    expect(agent.headers.get("set-cookie")).toBeNull()

    const unknown = await signIn("hk_human_" + "A".repeat(40))
    expect(unknown.status).toBe(401)
    expect((await json(unknown)).code).toBe("invalid_api_key")

    const missing = await signIn("")
    expect(missing.status).toBe(400)
    expect((await json(missing)).violations).toEqual([expect.objectContaining({ field: "credential" })])
  })

  it("signs a reviewer in with a human key: an HttpOnly SameSite=Strict cookie, the key never in the reply", async () => {
    const reply = await signIn(herald.credentials.human_key)
    expect(reply.status).toBe(201)
    const cookie = reply.headers.get("set-cookie")!
    expect(cookie).toMatch(/^herald_session=hs_[\w-]{43}; /)
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    expect(cookie).toMatch(/Path=\//)
    expect(cookie).not.toMatch(/Secure/)
    const text = await reply.text()
    expect(text).not.toContain(herald.credentials.human_key)
    expect(JSON.parse(text)).toMatchObject({ role: "reviewer", project_id: herald.credentials.project_id, csrf_token: expect.any(String) })
  })

  it("marks the cookie Secure behind https", async () => {
    const reply = await signIn(herald.credentials.human_key, { "x-forwarded-proto": "https" })
    expect(reply.headers.get("set-cookie")).toMatch(/; Secure/)
  })

  it("lets a reviewer's cookie read the REST API, and change only with the CSRF header", async () => {
    const reply = await signIn(herald.credentials.human_key)
    const cookie = cookieOf(reply)
    const { csrf_token } = await json(reply)

    const posts = await herald.call("/api/v1/posts", { token: null, headers: { cookie } })
    expect(posts.status).toBe(200)

    const check = { method: "POST", token: null, json: { caption: "hello" } } as const
    const withoutToken = await herald.call("/api/v1/guardrails/check", { ...check, headers: { cookie } })
    expect(withoutToken.status).toBe(403)
    expect((await json(withoutToken)).code).toBe("csrf_token_invalid")
    const wrongToken = await herald.call("/api/v1/guardrails/check", { ...check, headers: { cookie, "x-csrf-token": "x" + csrf_token.slice(1) } })
    expect(wrongToken.status).toBe(403)
    const withToken = await herald.call("/api/v1/guardrails/check", { ...check, headers: { cookie, "x-csrf-token": csrf_token } })
    expect(withToken.status).toBe(200)
    expect((await json(withToken)).allowed).toBe(true)

    const admin = await herald.call("/admin/v1/projects", { token: null, headers: { cookie } })
    expect(admin.status).toBe(403)
    expect((await json(admin)).code).toBe("session_not_allowed")
  })

  it("runs a session's requests as its key: the same principal, the same rate limit headers", async () => {
    const cookie = cookieOf(await signIn(herald.credentials.human_key))
    const bySession = await herald.call("/api/v1/project", { token: null, headers: { cookie } })
    const byKey = await herald.call("/api/v1/project", { token: herald.credentials.human_key })
    expect(bySession.status).toBe(200)
    expect((await json(bySession)).id).toBe((await json(byKey)).id)
    expect(bySession.headers.get("x-ratelimit-limit")).toBe(byKey.headers.get("x-ratelimit-limit"))
  })

  it("signs the operator in with the admin token: the admin API, not the REST API", async () => {
    const reply = await signIn(herald.credentials.admin_token)
    expect(reply.status).toBe(201)
    expect(await json(reply)).toMatchObject({ role: "operator" })
    const cookie = cookieOf(reply)
    const projects = await herald.call("/admin/v1/projects", { token: null, headers: { cookie } })
    expect(projects.status).toBe(200)
    expect((await json(projects)).data.map((project: { id: string }) => project.id)).toContain(herald.credentials.project_id)
    const posts = await herald.call("/api/v1/posts", { token: null, headers: { cookie } })
    expect(posts.status).toBe(403)
    expect((await json(posts)).code).toBe("session_not_allowed")
  })

  it("ends the session on the server at sign-out: the cookie is worthless afterwards", async () => {
    const reply = await signIn(herald.credentials.human_key)
    const cookie = cookieOf(reply)
    const { csrf_token } = await json(reply)
    const who = await herald.call("/dashboard/session", { token: null, headers: { cookie } })
    expect(await json(who)).toMatchObject({ role: "reviewer", csrf_token })

    const forged = await herald.call("/dashboard/session", { method: "DELETE", token: null, headers: { cookie } })
    expect(forged.status).toBe(403)
    const out = await herald.call("/dashboard/session", { method: "DELETE", token: null, headers: { cookie, "x-csrf-token": csrf_token } })
    expect(out.status).toBe(204)
    expect(out.headers.get("set-cookie")).toMatch(/^herald_session=; .*Max-Age=0/)

    const after = await herald.call("/api/v1/posts", { token: null, headers: { cookie } })
    expect(after.status).toBe(401)
    expect((await json(after)).code).toBe("session_ended")
    expect((await herald.call("/dashboard/session", { token: null, headers: { cookie } })).status).toBe(401)
  })

  it("takes the Authorization header over a cookie, and refuses a cookie that names no session", async () => {
    const cookie = cookieOf(await signIn(herald.credentials.human_key))
    const withBearer = await herald.call("/api/v1/posts", { token: herald.credentials.agent_key, headers: { cookie } })
    expect(withBearer.status).toBe(200)
    const garbage = await herald.call("/api/v1/posts", { token: null, headers: { cookie: "herald_session=hs_nonsense" } })
    expect(garbage.status).toBe(401)
    expect((await json(garbage)).code).toBe("session_ended")
  })

  it("ends a reviewer's session when its key is revoked", async () => {
    const created = await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/keys`, {
      method: "POST",
      token: herald.credentials.admin_token,
      json: { name: "short-lived", kind: "human", scopes: ["posts:read"] }
    })
    const key = await json(created)
    const cookie = cookieOf(await signIn(key.key))
    expect((await herald.call("/api/v1/posts", { token: null, headers: { cookie } })).status).toBe(200)
    const revoked = await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/keys/${key.id}/revoke`, {
      method: "POST",
      token: herald.credentials.admin_token
    })
    expect(revoked.status).toBeLessThan(300)
    const after = await herald.call("/api/v1/posts", { token: null, headers: { cookie } })
    expect(after.status).toBe(401)
    expect((await json(after)).code).toBe("revoked_api_key")
    const who = await herald.call("/dashboard/session", { token: null, headers: { cookie } })
    expect(who.status).toBe(401)
    expect((await json(who)).code).toBe("session_ended")
  })
})
