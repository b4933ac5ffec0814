import { Effect } from "effect"
import { vi } from "vitest"

/** Runs a CLI run in this process, capturing what it printed to stdout (console.log) and stderr (console.error), a line each. */
export const capturing = async (run: Effect.Effect<number>) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const log = vi.spyOn(console, "log").mockImplementation((...args) => void out.push(args.join(" ")))
  const error = vi.spyOn(console, "error").mockImplementation((...args) => void err.push(args.join(" ")))
  try {
    return { code: await Effect.runPromise(run), out, err }
  } finally {
    log.mockRestore()
    error.mockRestore()
  }
}
