import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import express from "express"
import Fastify from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { heraldClient, HeraldUnreachable, MissingAdminToken, ShuttingDown } from "../src/index.js"
import { createHerald, type Herald } from "../src/Sdk.js"

let herald: Herald
const dataDir = embeddedDataDir("herald-sdk-adapters-")
const servers: Array<{ close: () => unknown }> = []

beforeAll(async () => {
  herald = await createHerald({ publicUrl: "http://127.0.0.1/herald", dataDir, demo: true })
}, 60_000)
afterAll(async () => {
  for (const server of servers) await server.close()
  await herald?.close()
  Fs.rmSync(dataDir, { recursive: true, force: true })
})

const listening = async (server: Http.Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  servers.push({ close: () => new Promise((resolve) => server.close(resolve)) })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const post = (origin: string, path: string, body: unknown, key = herald.demoCredentials!.agent_key) =>
  fetch(`${origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })

const draft = { caption: "Through an adapter", social_accounts: ["x:herald_demo"], is_draft: true }

describe("node:http, Express and Fastify adapters with a mount prefix", () => {
  it("node:http: Herald answers under its prefix only; outside it, a JSON 404", async () => {
    const origin = await listening(Http.createServer(herald.node({ prefix: "/herald/" })))
    expect((await fetch(`${origin}/herald/health`)).status).toBe(200)
    const created = await post(origin, "/herald/api/v1/posts", draft)
    expect(created.status).toBe(201)
    expect(created.headers.get("x-ratelimit-limit")).not.toBeNull()
    const rest = (await created.json()) as { id: string }
    expect(rest).toMatchObject({ status: "draft", repeated: false })
    // The adapter's handler was built first here: in-process calls still authenticate as the SDK.
    const api = herald.api(herald.demoCredentials!.agent_key)
    const inProcess = await api.posts.create({ payload: { ...draft, caption: "In process after REST" } })
    const rows = (await api.posts.list({ urlParams: {} })).data
    expect(rows.find((row) => row.id === rest.id)!.provenance.created_by.surface).toBe("rest")
    expect(rows.find((row) => row.id === inProcess.id)!.provenance.created_by.surface).toBe("sdk")
    const outside = await fetch(`${origin}/heraldic/api/v1/posts`)
    expect([outside.status, await outside.json()]).toEqual([404, { error: "no such endpoint", code: "not_found" }])
  })

  it("Express: mounted before the host's body parser, the host's own routes untouched", async () => {
    const app = express()
    app.use(herald.express({ prefix: "/herald" }))
    app.use(express.json())
    app.post("/echo", (request, response) => void response.json({ echoed: request.body }))
    const origin = await listening(Http.createServer(app))
    expect((await post(origin, "/herald/api/v1/posts", draft)).status).toBe(201)
    const refused = await post(origin, "/herald/api/v1/posts", { ...draft, caption: "" })
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([400, "validation_failed"])
    expect(await (await post(origin, "/echo", { a: 1 })).json()).toEqual({ echoed: { a: 1 } })
    const app2 = express()
    app2.use("/mounted", herald.express())
    const origin2 = await listening(Http.createServer(app2))
    expect((await fetch(`${origin2}/mounted/health`)).status).toBe(200)
  })

  it("Fastify: the plugin reads its own bodies; the host's JSON routes still parse theirs", async () => {
    const app = Fastify()
    await app.register(herald.fastify({ prefix: "/herald" }))
    app.post("/echo", async (request) => ({ echoed: request.body }))
    await app.listen({ port: 0, host: "127.0.0.1" })
    servers.push({ close: () => app.close() })
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    expect((await post(origin, "/herald/api/v1/posts", draft)).status).toBe(201)
    expect((await fetch(`${origin}/herald/health`)).status).toBe(200)
    expect(await (await post(origin, "/echo", { a: 1 })).json()).toEqual({ echoed: { a: 1 } })
  })
})

describe("heraldClient: the same typed surface against a Herald over HTTP", () => {
  it("creates and lists with a key, uses the admin API with a token, and tells a missing token and an unreachable Herald", async () => {
    const origin = await listening(Http.createServer(herald.node({ prefix: "/herald" })))
    const { agent_key, admin_token, project_id } = herald.demoCredentials!
    const remote = heraldClient({ url: `${origin}/herald/`, apiKey: agent_key, adminToken: admin_token })
    const created = await remote.api.posts.create({ payload: draft })
    expect((await remote.api.posts.list({ urlParams: { status: ["draft"] } })).data.map((row) => row.id)).toContain(created.id)
    expect((await remote.admin.projects.get({ path: { project_id } })).id).toBe(project_id)
    const untokened = heraldClient({ url: `${origin}/herald` })
    await expect(untokened.admin.projects.list()).rejects.toBeInstanceOf(MissingAdminToken)
    const closed = await listening(Http.createServer())
    await servers.pop()!.close()
    await expect(heraldClient({ url: closed, apiKey: agent_key }).api.accounts.project()).rejects.toBeInstanceOf(HeraldUnreachable)
  })
})

describe("close()", () => {
  it("lets a request in flight finish, answers 503 shutting_down to new requests and calls, then resolves", async () => {
    const origin = await listening(Http.createServer(herald.node()))
    // A body that arrives slowly keeps the request in flight while close() begins.
    let finish!: () => void
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify(draft).slice(0, 10)))
        await new Promise<void>((resolve) => (finish = resolve))
        controller.enqueue(new TextEncoder().encode(JSON.stringify(draft).slice(10)))
        controller.close()
      }
    })
    const inFlight = fetch(`${origin}/api/v1/posts`, {
      method: "POST",
      headers: { authorization: `Bearer ${herald.demoCredentials!.agent_key}`, "content-type": "application/json" },
      body,
      duplex: "half"
    } as RequestInit)
    await new Promise((resolve) => setTimeout(resolve, 200))
    let closed = false
    const closing = herald.close({ deadline: 5_000 }).then(() => (closed = true))
    const late = await fetch(`${origin}/health`)
    expect([late.status, await late.json()]).toEqual([503, { error: "Herald is shutting down", code: "shutting_down" }])
    const call = await herald.api(herald.demoCredentials!.agent_key).accounts.project().then(() => null, (error: unknown) => error)
    expect(call).toBeInstanceOf(ShuttingDown)
    expect(closed).toBe(false)
    finish()
    expect((await inFlight).status).toBe(201)
    await closing
    expect(closed).toBe(true)
  }, 30_000)
})
