import { type ChildProcess, spawn } from "node:child_process"
import * as Path from "node:path"

/** The repository root, where `npm start` runs. */
const root = Path.resolve(import.meta.dirname, "../../..")

/**
 * A TypeScript script from the sources in a process of its own: node itself with tsx as a loader
 * (`npx tsx` would start npm, then a tsx process in front of the node process that runs the
 * script, for nothing the tests need), with the given environment beside the test's.
 */
export const sourceScript = (
  script: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  stdout: "pipe" | "inherit"
) =>
  spawn(process.execPath, ["--conditions=herald-source", "--import", "tsx", script, ...args], {
    env: { ...process.env, ...env },
    // stdout is piped only where it is read: a full pipe would stall the child.
    stdio: ["ignore", stdout, "inherit"]
  })

/** The CLI from the sources (as sourceScript runs a script), run from the repository's root. */
export const sourceCli = (argv: ReadonlyArray<string>) => ({
  command: process.execPath,
  args: ["--conditions=herald-source", "--import", "tsx", "packages/app/src/bin.ts", ...argv],
  cwd: root
})

export interface Started {
  readonly child: ChildProcess
  /** The first capture group of the ready pattern (the port, for serve). */
  readonly ready: string
  readonly output: () => string
}

/**
 * `herald <command>` from the sources (sourceCli: what `npm start` runs for serve, from the sources
 * rather than dist/) with the given environment; resolves once its output matches `ready`.
 */
export const runHerald = (command: string, env: Record<string, string>, ready: RegExp) =>
  new Promise<Started>((resolve, reject) => {
    const cli = sourceCli([command])
    const child = spawn(cli.command, cli.args, {
      cwd: cli.cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, which stopHerald signals.
      detached: true
    })
    let output = ""
    const timer = setTimeout(() => reject(new Error(`herald ${command} not ready within 60 s:\n${output}`)), 60_000)
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const match = ready.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve({ child, ready: match[1] ?? match[0], output: () => output })
      }
    }
    child.stdout.on("data", read)
    child.stderr.on("data", read)
    child.on("exit", (code) => reject(new Error(`herald ${command} exited with ${code}:\n${output}`)))
  })

export const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/

export const stopHerald = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.on("exit", () => resolve())
    try {
      process.kill(-child.pid!, "SIGINT")
    } catch {
      resolve() // the group is already gone
    }
  })
