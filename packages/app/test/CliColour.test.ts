import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { Effect } from "effect"
import { describe, expect, it, vi } from "vitest"
import { runCli } from "../src/Cli.js"
import { colourWanted } from "../src/CliColour.js"
import { sourceCli } from "./HeraldProcess.js"

const escape = "\u001b"

/** The CLI in a process of its own, its stdout and stderr pipes (not terminals). */
const herald = (argv: ReadonlyArray<string>, env: Record<string, string>) => {
  const inherited: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined }
  const cli = sourceCli(argv)
  return promisify(execFile)(cli.command, cli.args, {
    cwd: cli.cwd,
    env: { ...Object.fromEntries(Object.entries(inherited).filter((entry): entry is [string, string] => entry[1] !== undefined)), ...env }
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr })
  )
}

describe("the CLI's colours", () => {
  it("are decided by FORCE_COLOR, then NO_COLOR, then whether the stream is a terminal", () => {
    expect(colourWanted({}, true)).toBe(true)
    expect(colourWanted({}, false)).toBe(false)
    expect(colourWanted({ NO_COLOR: "1" }, true)).toBe(false)
    expect(colourWanted({ NO_COLOR: "" }, true)).toBe(true)
    expect(colourWanted({ FORCE_COLOR: "1" }, false)).toBe(true)
    expect(colourWanted({ FORCE_COLOR: "" }, false)).toBe(true)
    expect(colourWanted({ FORCE_COLOR: "0" }, true)).toBe(false)
    expect(colourWanted({ FORCE_COLOR: "false", NO_COLOR: "" }, true)).toBe(false)
    expect(colourWanted({ FORCE_COLOR: "1", NO_COLOR: "1" }, false)).toBe(true)
  })

  it("are left out of help and usage errors written to pipes", async () => {
    const [help, usage] = await Promise.all([herald(["--help"], {}), herald(["admin", "keys", "create", "--kind", "sometimes"], {})])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("USAGE")
    expect(help.stdout).not.toContain(escape)
    expect(help.stderr).not.toContain(escape)
    expect(usage.code).toBe(2)
    expect(usage.stderr + usage.stdout).toContain("Expected one of the following cases: agent, human")
    expect(usage.stderr).not.toContain(escape)
    expect(usage.stdout).not.toContain(escape)
  }, 180_000)

  it("are kept when FORCE_COLOR asks (the same help carries escapes: the check above can fail)", async () => {
    const out: Array<string> = []
    const log = vi.spyOn(console, "log").mockImplementation((...args) => void out.push(args.join(" ")))
    const before = process.env.FORCE_COLOR
    process.env.FORCE_COLOR = "1"
    try {
      expect(await Effect.runPromise(runCli(["--help"]))).toBe(0)
    } finally {
      if (before === undefined) delete process.env.FORCE_COLOR
      else process.env.FORCE_COLOR = before
      log.mockRestore()
    }
    expect(out.join("\n")).toContain("USAGE")
    expect(out.join("\n")).toContain(escape)
  })
})
