import type { ChildProcess } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, describe, expect, it } from "vitest"
import { listening, runHerald, stopHerald } from "../../app/test/HeraldProcess.js"
import { databaseUrl, throwawaySchema } from "../../app/test/TestDatabase.js"
import { json, tempDataDir } from "../../app/test/TestHerald.js"
import { connect, refusalOf, resultOf } from "./McpClient.js"

const running: Array<ChildProcess> = []
const dataDirs: Array<string> = []
afterAll(async () => {
  await Promise.all(running.map(stopHerald))
  for (const dir of dataDirs) Fs.rmSync(dir, { recursive: true, force: true })
})

const serve = async (env: Record<string, string>) => {
  const started = await runHerald("serve", { PORT: "0", HERALD_WORKERS: "false", ...env }, listening)
  running.push(started.child)
  // First start prints the demo keys once, before it listens: what it writes from then on is what requests made it write.
  const startup = started.output().length
  return { origin: `http://127.0.0.1:${started.ready}`, output: () => started.output().slice(startup) }
}

const credentialsIn = (dataDir: string) => JSON.parse(Fs.readFileSync(Path.join(dataDir, "credentials.json"), "utf8"))

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const rpc = (url: string, body: unknown, extra: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { ...headers, ...extra }, body: typeof body === "string" ? body : JSON.stringify(body) })
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}

describe("herald serve as a process", () => {
  it("never writes a key sent in the path to its output, whatever the request makes of it", async () => {
    const dataDir = embeddedDataDir("herald-processes-")
    dataDirs.push(dataDir)
    const herald = await serve({ HERALD_DATA_DIR: dataDir, DATABASE_URL: "" })
    const { agent_key } = credentialsIn(dataDir)
    const client = await connect(herald.origin, agent_key, "path")
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult
    resultOf(await call("list_accounts", {}))
    refusalOf(await call("create_post", { caption: "x", social_accounts: [] }))
    refusalOf(await call("get_delivery_receipt", { post_id: "00000000-0000-4000-8000-000000000000" }))
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow()
    await client.close()
    const keyed = `${herald.origin}/api/mcp/${agent_key}`
    expect((await rpc(keyed, "{not json")).status).toBe(400)
    expect((await fetch(keyed)).status).toBe(405)
    const revokedLooking = `hk_agent_${"Q".repeat(40)}`
    const refused = await rpc(`${herald.origin}/api/mcp/${revokedLooking}`, initialize)
    expect(refused.status).toBe(401)
    expect(await refused.text()).not.toContain(revokedLooking)
    // Output is read after the requests are answered; give the process a moment to flush its logs.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const output = herald.output()
    expect(output).not.toContain(agent_key)
    expect(output).not.toContain(agent_key.slice(9))
    expect(output).not.toContain(revokedLooking)
  }, 120_000)
})

describe.skipIf(databaseUrl === "")("two API processes on one PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", () => {
  it("initialize goes to one process and tools/call to the other: no session is held", async () => {
    const schema = await throwawaySchema("herald_mcp")
    try {
      const dataDir = tempDataDir()
      dataDirs.push(dataDir)
      const env = { DATABASE_URL: schema.url, HERALD_DATA_DIR: dataDir }
      const first = await serve(env)
      const second = await serve(env)
      const { agent_key } = credentialsIn(dataDir)
      const auth = { authorization: `Bearer ${agent_key}` }
      const initialized = await rpc(`${first.origin}/api/mcp`, initialize, auth)
      expect(initialized.status).toBe(200)
      const { result } = await json(initialized)
      expect(result.serverInfo.name).toBe("herald")
      expect(initialized.headers.get("mcp-session-id")).toBeNull()
      const protocol = { ...auth, "mcp-protocol-version": result.protocolVersion }
      const created = await rpc(`${second.origin}/api/mcp`, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "create_post", arguments: { caption: "From the second process", social_accounts: ["bluesky:herald_demo"] } }
      }, protocol)
      expect(created.status).toBe(200)
      const post = (await json(created)).result.structuredContent
      expect(post).toMatchObject({ status: "pending_approval", repeated: false })
      const listed = await rpc(`${first.origin}/api/mcp`, {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "list_posts", arguments: { limit: 1 } }
      }, protocol)
      expect((await json(listed)).result.structuredContent.data[0].id).toBe(post.id)
    } finally {
      await schema.drop()
    }
  }, 180_000)
})
