import * as Fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createHerald } from "@herald/app"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { expect, it } from "vitest"
import { draftAnnouncement } from "../src/agent.js"

it("drafts a post through MCP; the agent key's post is held for approval", async () => {
  const dataDir = embeddedDataDir("herald-example-mcp-")
  const herald = await createHerald({ publicUrl: "http://127.0.0.1", dataDir, demo: true })
  const server = createServer(herald.node())
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const result = await draftAnnouncement(url, herald.demoCredentials!.agent_key, "Hello from an agent")
    expect(result.tools).toContain("create_post")
    expect(result.created).toMatchObject({ status: "pending_approval" })
  } finally {
    await new Promise((resolve) => server.close(resolve))
    await herald.close()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}, 60_000)
