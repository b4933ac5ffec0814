import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { Console, Effect } from "effect"

const packageDir = Path.dirname(createRequire(import.meta.url).resolve("@herald/dashboard/package.json"))

/** The built dashboard the server serves at /dashboard/ (packages/dashboard's `npm run build`). */
export const dashboardDir = Path.join(packageDir, "dist")

/** What the build reads: a change to any of them makes the build stale. */
const sources = ["src", "index.html", "vite.config.ts", "package.json"].map((name) => Path.join(packageDir, name))

const newestChange = (path: string): number => {
  const stat = Fs.statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  return Fs.readdirSync(path).reduce((newest, name) => Math.max(newest, newestChange(Path.join(path, name))), stat.mtimeMs)
}

/**
 * Whether the dashboard needs building: never built, or a source changed since. A copy without
 * the sources (an installed package) is taken as built.
 */
export const dashboardStale = (): boolean => {
  const built = Fs.statSync(Path.join(dashboardDir, "index.html"), { throwIfNoEntry: false })
  if (built === undefined) return Fs.existsSync(sources[0]!)
  return sources.some((source) => newestChange(source) > built.mtimeMs)
}

/**
 * Builds the dashboard when it is stale (a few seconds, once after a clone or a change); otherwise
 * costs a few file stats, so `npm start` stays fast. A failed build is reported and the server
 * starts anyway: /dashboard/ then says how to build it.
 */
export const buildDashboardIfStale = Effect.suspend(() => {
  if (!dashboardStale()) return Effect.void
  return Effect.zipRight(
    Console.log("Building the dashboard (packages/dashboard)…"),
    Effect.sync(() => spawnSync("npm", ["run", "build", "--silent"], { cwd: packageDir, stdio: ["ignore", "ignore", "inherit"] })).pipe(
      Effect.flatMap((run) =>
        run.status === 0 ? Effect.void : Console.error(`The dashboard did not build (exit ${run.status}); /dashboard/ will say so.`))
    )
  )
})
