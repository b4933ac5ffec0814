import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** The repository root, where `npm start` runs and the workspaces are listed. */
export const root = Path.resolve(import.meta.dirname, "../../../..")

/**
 * This process's environment without npm's own variables: under `npm test` they name this
 * workspace (npm_config_*, npm_package_*), which an npm run in another project must not inherit.
 */
export const cleanEnv = (overrides: Record<string, string> = {}): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name, value]) => !name.startsWith("npm_") && value !== undefined)) as Record<string, string>,
  ...overrides
})

/** Runs a command to its end; rejects with its output when it fails. */
export const run = (command: string, args: ReadonlyArray<string>, cwd: string, env = cleanEnv()) =>
  new Promise<string>((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`)))
  })

/** The workspaces meant for npm (not private), as `npm pack --workspace` names them. */
export const publishable = () =>
  Fs.readdirSync(Path.join(root, "packages"))
    .map((dir) => Path.join(root, "packages", dir, "package.json"))
    .filter((file) => Fs.existsSync(file))
    .map((file) => JSON.parse(Fs.readFileSync(file, "utf8")) as { name: string; private?: boolean })
    .filter((pkg) => pkg.private !== true)
    .map((pkg) => pkg.name)

/** The version of a package installed in the workspace (the consumer gets the same TypeScript). */
export const installedVersion = (name: string) =>
  (JSON.parse(Fs.readFileSync(Path.join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version
