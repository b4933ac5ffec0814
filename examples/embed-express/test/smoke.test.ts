import * as Fs from "node:fs"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { expect, it } from "vitest"
import { start } from "../src/server.js"

it("serves Herald under /herald and posts through the SDK from its own route", async () => {
  const dataDir = embeddedDataDir("herald-example-express-")
  const service = await start({ port: 0, dataDir })
  try {
    expect((await fetch(`${service.origin}/herald/health`)).status).toBe(200)
    const announce = (text: string) =>
      fetch(`${service.origin}/announce`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) })
    const held = await announce("Hello from Express")
    expect([held.status, ((await held.json()) as { status: string }).status]).toEqual([201, "pending_approval"])
    const empty = await announce("")
    expect([empty.status, ((await empty.json()) as { code: string }).code]).toEqual([400, "validation_failed"])
  } finally {
    await service.close()
  }
  // A later start on the same data: the demo's keys are not made again, so it needs the agent key.
  try {
    await expect(start({ port: 0, dataDir })).rejects.toThrow(/HERALD_AGENT_KEY/)
    const again = await start({ port: 0, dataDir, agentKey: service.herald.demoCredentials!.agent_key })
    try {
      const held = await fetch(`${again.origin}/announce`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "Again" }) })
      expect(held.status).toBe(201)
    } finally {
      await again.close()
    }
  } finally {
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}, 120_000)
