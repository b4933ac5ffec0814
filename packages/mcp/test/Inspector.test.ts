import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHerald, type TestHerald } from "../../app/test/TestHerald.js"

// The inspector's CLI proper (build/index.js); its bin (build/cli.js) is a launcher that spawns it.
// It runs from its build/ directory: it finds its own package.json relative to the working directory.
const inspectorCli = Path.join(Path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli")), "index.js")

describe("the official MCP inspector CLI against Herald", () => {
  let herald: TestHerald
  beforeAll(async () => {
    herald = await startHerald({ workers: false })
  })
  afterAll(async () => {
    await herald?.close()
  })

  const inspect = async (...args: Array<string>) => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      inspectorCli,
      `${herald.origin}/api/mcp`,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${herald.credentials.agent_key}`,
      ...args
    ], { timeout: 30_000, cwd: Path.dirname(inspectorCli) })
    return JSON.parse(stdout)
  }

  it("lists the 12 tools and calls one", async () => {
    const listed = await inspect("--method", "tools/list")
    expect(listed.tools).toHaveLength(12)
    const called = await inspect("--method", "tools/call", "--tool-name", "check_guardrails", "--tool-arg", "caption=Hello from the inspector")
    expect(called.isError ?? false).toBe(false)
    expect(called.structuredContent).toEqual({ allowed: true, violations: [], rules_checked: [], rules_skipped: [], skipped: [] })
  })
})
