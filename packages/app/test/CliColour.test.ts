import { describe, expect, it, vi } from "vitest"
import { runCli } from "../src/Cli.js"
import { colourWanted } from "../src/CliColour.js"
import { capturing } from "./CliCapture.js"

const escape = "\u001b"

/**
 * The CLI in this process with its stdout and stderr taken for pipes (not terminals, as when
 * piped to a file or a CI log) and FORCE_COLOR and NO_COLOR as `env` sets them (else unset): what
 * it printed to each.
 */
const onPipes = async (argv: ReadonlyArray<string>, env: { readonly FORCE_COLOR?: string; readonly NO_COLOR?: string } = {}) => {
  const streams = [process.stdout, process.stderr]
  const wasTTY = streams.map((stream) => Object.getOwnPropertyDescriptor(stream, "isTTY"))
  streams.forEach((stream) => Object.defineProperty(stream, "isTTY", { value: false, configurable: true }))
  vi.stubEnv("FORCE_COLOR", env.FORCE_COLOR)
  vi.stubEnv("NO_COLOR", env.NO_COLOR)
  try {
    const { code, err, out } = await capturing(runCli(argv))
    return { code, stdout: out.join("\n"), stderr: err.join("\n") }
  } finally {
    vi.unstubAllEnvs()
    streams.forEach((stream, index) => {
      const descriptor = wasTTY[index]
      if (descriptor === undefined) delete (stream as { isTTY?: boolean }).isTTY
      else Object.defineProperty(stream, "isTTY", descriptor)
    })
  }
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
    const help = await onPipes(["--help"])
    const usage = await onPipes(["admin", "keys", "create", "--kind", "sometimes"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("USAGE")
    expect(help.stdout).not.toContain(escape)
    expect(help.stderr).not.toContain(escape)
    expect(usage.code).toBe(2)
    expect(usage.stderr + usage.stdout).toContain("Expected one of the following cases: agent, human")
    expect(usage.stderr).not.toContain(escape)
    expect(usage.stdout).not.toContain(escape)
  })

  it("are kept when FORCE_COLOR asks (the same help carries escapes: the check above can fail)", async () => {
    const help = await onPipes(["--help"], { FORCE_COLOR: "1" })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("USAGE")
    expect(help.stdout).toContain(escape)
  })
})
