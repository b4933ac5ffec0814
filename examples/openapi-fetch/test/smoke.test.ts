import * as Fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createHerald } from "@herald/app"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { expect, it } from "vitest"
import { typesFile, typesOf } from "../src/generate.js"
import { announce } from "../src/main.js"

it("posts and lists with openapi-fetch; the checked-in types are those of the served document", async () => {
  const dataDir = embeddedDataDir("herald-example-openapi-")
  const herald = await createHerald({ publicUrl: "http://127.0.0.1", dataDir, demo: true })
  const server = createServer(herald.node())
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const created = await announce(url, herald.demoCredentials!.agent_key, "Hello from openapi-fetch")
    expect(created).toMatchObject({ status: 201 })
    expect((created as { listed: ReadonlyArray<string> }).listed).toContain((created as { id: string }).id)
    expect(await announce(url, herald.demoCredentials!.agent_key, "")).toMatchObject({ status: 400, code: "validation_failed" })
    // Stale types compile against an API that is not the one served: regenerate with `npm run generate -w examples/openapi-fetch`.
    expect(await typesOf(url)).toBe(Fs.readFileSync(typesFile, "utf8"))
  } finally {
    await new Promise((resolve) => server.close(resolve))
    await herald.close()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}, 60_000)
