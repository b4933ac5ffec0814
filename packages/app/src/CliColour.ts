import type * as Console from "effect/Console"
import { Effect } from "effect"
import { stripVTControlCharacters } from "node:util"

type Env = Readonly<Record<string, string | undefined>>

/**
 * Whether the CLI may colour what it writes to a stream: FORCE_COLOR decides when set (off for
 * "0" and "false", on otherwise, as Node reads it), then NO_COLOR (no-color.org: set and not
 * empty), then whether the stream is a terminal.
 */
export const colourWanted = (env: Env, isTTY: boolean): boolean => {
  const force = env.FORCE_COLOR
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false"
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false
  return isTTY
}

const plain = (args: ReadonlyArray<unknown>) => args.map((arg) => typeof arg === "string" ? stripVTControlCharacters(arg) : arg)

/**
 * Runs `self` with a Console that drops ANSI escapes from what goes to a stream that should not be
 * coloured. @effect/cli renders its help and usage errors with colours whatever the stream is
 * (HelpDoc.toAnsiText), so `herald --help | cat` and CI logs would carry escape codes.
 */
export const withCliColours = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  streams: { readonly env: Env; readonly stdoutIsTTY: boolean; readonly stderrIsTTY: boolean } = {
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true
  }
): Effect.Effect<A, E, R> => {
  const stdout = colourWanted(streams.env, streams.stdoutIsTTY)
  const stderr = colourWanted(streams.env, streams.stderrIsTTY)
  if (stdout && stderr) return self
  return Effect.consoleWith((console) => {
    const out = (write: (...args: ReadonlyArray<unknown>) => Effect.Effect<void>) =>
      stdout ? write : (...args: ReadonlyArray<unknown>) => write(...plain(args))
    const err = (write: (...args: ReadonlyArray<unknown>) => Effect.Effect<void>) =>
      stderr ? write : (...args: ReadonlyArray<unknown>) => write(...plain(args))
    const uncoloured: Console.Console = {
      ...console,
      log: out((...args) => console.log(...args)),
      info: out((...args) => console.info(...args)),
      debug: out((...args) => console.debug(...args)),
      error: err((...args) => console.error(...args)),
      warn: err((...args) => console.warn(...args)),
      trace: err((...args) => console.trace(...args))
    }
    return Effect.withConsole(self, uncoloured)
  })
}
