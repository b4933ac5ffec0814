// `npm test` (what .ci/run runs): the fast suite (`vitest run`, vitest.config.ts), then the slow
// end-to-end files (`vitest run --config vitest.slow.config.ts`, the `slow` list in
// vitest.workspace.ts), so that both are tested; prints each part's wall time, and fails when either
// part fails. Arguments go to both parts (`npm test -- packages/app`); with
// arguments a part that has no file to run passes.
import { spawnSync } from "node:child_process"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const args = process.argv.slice(2)
const parts = [
  { name: "fast suite (npx vitest run)", config: [] },
  { name: "slow set (npm run test:slow)", config: ["--config", "vitest.slow.config.ts"] }
]

const results = parts.map(({ config, name }) => {
  const started = process.hrtime.bigint()
  const run = spawnSync(process.execPath, [vitest, "run", ...config, ...(args.length > 0 ? ["--passWithNoTests"] : []), ...args], { cwd: root, stdio: "inherit" })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const status = run.status ?? 1
  console.log(`\n${name}: ${status === 0 ? "passed" : `failed (exit ${run.status ?? run.signal})`} in ${seconds.toFixed(1)} s wall time\n`)
  return { name, status, seconds }
})

console.log(results.map(({ name, seconds, status }) => `${status === 0 ? "passed" : "FAILED"}  ${seconds.toFixed(1).padStart(7)} s  ${name}`).join("\n"))
process.exit(results.some(({ status }) => status !== 0) ? 1 : 0)
