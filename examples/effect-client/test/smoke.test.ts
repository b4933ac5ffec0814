import * as Fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createHerald } from "@herald/app"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { Effect } from "effect"
import { expect, it } from "vitest"
import { announce } from "../src/main.js"

it("creates a post through the typed client and gets a refusal as its class", async () => {
  const dataDir = embeddedDataDir("herald-example-effect-")
  const herald = await createHerald({ publicUrl: "http://127.0.0.1", dataDir, demo: true })
  const server = createServer(herald.node())
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const key = herald.demoCredentials!.agent_key
    expect(await Effect.runPromise(announce(url, key, "Hello from Effect"))).toMatchObject({ project: "Demo", status: "pending_approval" })
    expect(await Effect.runPromise(announce(url, key, ""))).toMatchObject({ refused: "validation_failed" })
  } finally {
    await new Promise((resolve) => server.close(resolve))
    await herald.close()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}, 60_000)
