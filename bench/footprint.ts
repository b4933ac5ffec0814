// Footprint of `herald serve`: time from spawn to the "listening" line on an empty data directory
// (first start) and on existing data (restart, median of three), resident memory (VmRSS) when idle
// after each, and the highest VmRSS sampled under the bench/http load (POST then GET /posts at 32
// connections, after their warm-ups). The CPU time used until ready is printed under each start:
// on a machine shared with other work the wall time waits for cores, and the CPU time is what the
// start costs in all. On the embedded PGlite store, and on PostgreSQL when
// DATABASE_URL is set (a throwaway database, dropped at the end). Each figure is printed beside
// its target and beside the same figure for a bare node:http server started in the same run (the
// floor any Node server pays).
//   npm run build && npm run bench:footprint     (PGlite only)
//   DATABASE_URL=postgres://127.0.0.1:5432/postgres npm run bench:footprint
// BENCH_FOOTPRINT_LAUNCH picks how Herald is started: `compiled` (node on packages/app/dist/herald.js,
// the bundle `npm start` runs after `npm run build`, or on the script BENCH_FOOTPRINT_ENTRY names,
// e.g. packages/app/dist/bin.js for tsc's output unbundled; the default), `node-tsx` (node --import tsx on the sources), or `tsx` (the tsx command, which runs
// node in a child: memory is the sum of both).
// Targets: restart ≤ 1.5 s; idle RSS ≤ 250 MB embedded, ≤ 150 MB on PostgreSQL; under load ≤ 300 MB on PostgreSQL.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { call, heraldReady, postBody, prepare, root, rssMb, type Server, start, stop, withThrowawayDatabase } from "./HeraldProcess.js"
import { load } from "./Load.js"
import { cpuMsOf } from "./ProcessCpu.js"

const restarts = 3
const settleMs = Number(process.env.BENCH_SETTLE_MS ?? 3000)
const connections = 32

const launchers: Record<string, { readonly command: string; readonly args: ReadonlyArray<string> }> = {
  "node-tsx": { command: process.execPath, args: ["--conditions=herald-source", "--import", "tsx", "packages/app/src/bin.ts", "serve"] },
  tsx: { command: Path.join(root, "node_modules/.bin/tsx"), args: ["--conditions=herald-source", "packages/app/src/bin.ts", "serve"] },
  compiled: { command: process.execPath, args: [process.env.BENCH_FOOTPRINT_ENTRY ?? "packages/app/dist/herald.js", "serve"] }
}
const launchName = process.env.BENCH_FOOTPRINT_LAUNCH ?? "compiled"
const launcher = launchers[launchName]
if (launcher === undefined) throw new Error(`BENCH_FOOTPRINT_LAUNCH must be one of ${Object.keys(launchers).join(", ")}`)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The pids of a process and of every process under it (the tsx command runs node in a child). */
const tree = (pid: number): Array<number> => {
  let children: Array<number> = []
  try {
    children = Fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter((s) => s !== "").map(Number)
  } catch {
    // Gone, or not Linux: the process alone.
  }
  return [pid, ...children.flatMap(tree)]
}
const treeRssMb = (server: Server) => tree(server.child.pid!).reduce((sum, pid) => sum + rssMb(pid), 0)

interface Started {
  readonly server: Server
  readonly readyMs: number
  /** CPU time the process (and its children) used until ready: what the wall time is on an idle machine, at most. */
  readonly readyCpuMs: number
}

const startTimed = async (command: string, args: ReadonlyArray<string>, env: Record<string, string>, ready: RegExp): Promise<Started> => {
  const started = performance.now()
  const server = await start(command, args, env, ready)
  return { server, readyMs: performance.now() - started, readyCpuMs: cpuMsOf(tree(server.child.pid!)) ?? Number.NaN }
}

const idleRss = async (server: Server) => {
  await sleep(settleMs)
  return treeRssMb(server)
}

/** The highest VmRSS sampled every 100 ms while `during` runs. */
const sampledPeak = async (server: Server, during: () => Promise<unknown>) => {
  let peak = treeRssMb(server)
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssMb(server))
  }, 100)
  try {
    await during()
  } finally {
    clearInterval(timer)
  }
  return Math.max(peak, treeRssMb(server))
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const bareScript = `
const http = require("node:http")
const server = http.createServer((req, res) => res.end("ok"))
server.listen(0, "127.0.0.1", () => console.log("bare listening on " + server.address().port))
`

/** The floor: a bare node:http server, started the same way and measured the same way. */
const measureBare = async () => {
  const readies: Array<number> = []
  const readyCpus: Array<number> = []
  let idle = 0
  let underLoad = 0
  for (let run = 0; run < restarts; run++) {
    const { readyCpuMs, readyMs, server } = await startTimed(process.execPath, ["-e", bareScript], {}, /bare listening on (\d+)/)
    readies.push(readyMs)
    readyCpus.push(readyCpuMs)
    if (run === restarts - 1) {
      idle = await idleRss(server)
      underLoad = await sampledPeak(server, () => load(`${server.origin}/`, connections, { method: "GET", headers: {} }))
    }
    await stop(server)
  }
  return { readyMs: median(readies), readyCpuMs: median(readyCpus), idle, underLoad }
}

interface Footprint {
  readonly firstReadyMs: number
  readonly firstReadyCpuMs: number
  readonly firstIdle: number
  readonly restartMs: ReadonlyArray<number>
  readonly restartCpuMs: ReadonlyArray<number>
  readonly restartIdle: number
  readonly underLoad: number
}

const measureHerald = async (env: Record<string, string>): Promise<Footprint> => {
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-footprint-"))
  const heraldEnv = { PORT: "0", HERALD_DATA_DIR: dataDir, DATABASE_URL: "", ...env }
  const launch = () => startTimed(launcher.command, launcher.args, heraldEnv, heraldReady)
  try {
    const first = await launch()
    const firstIdle = await idleRss(first.server)
    await stop(first.server)
    const restartMs: Array<number> = []
    const restartCpuMs: Array<number> = []
    let restartIdle = 0
    let underLoad = 0
    for (let run = 0; run < restarts; run++) {
      const { readyCpuMs, readyMs, server } = await launch()
      try {
        restartMs.push(readyMs)
        restartCpuMs.push(readyCpuMs)
        if (run < restarts - 1) continue
        restartIdle = await idleRss(server)
        const credentials = JSON.parse(Fs.readFileSync(Path.join(dataDir, "credentials.json"), "utf8")) as { admin_token: string }
        const key = await prepare(server.origin, credentials.admin_token)
        await call(server.origin, "/api/v1/posts", key, JSON.parse(postBody))
        const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
        underLoad = await sampledPeak(server, async () => {
          await load(`${server.origin}/api/v1/posts`, connections, { method: "POST", headers, body: postBody })
          await load(`${server.origin}/api/v1/posts?limit=50`, connections, { method: "GET", headers })
        })
      } finally {
        await stop(server)
      }
    }
    return { firstReadyMs: first.readyMs, firstReadyCpuMs: first.readyCpuMs, firstIdle, restartMs, restartCpuMs, restartIdle, underLoad }
  } finally {
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const mb = (value: number) => `${value.toFixed(0)} MB`

const report = (label: string, figures: Footprint, bare: Awaited<ReturnType<typeof measureBare>>, targets: {
  readonly idle: number
  readonly underLoad: number | null
}) => {
  const line = (name: string, value: string, target: string, floor: string, met: boolean | null) =>
    console.log(
      `  ${name.padEnd(32)} ${value.padStart(9)}   target ${target.padEnd(9)} ${(met === null ? "" : met ? "met" : "NOT met").padEnd(8)} bare node ${floor}`
    )
  const restart = median(figures.restartMs)
  console.log(`\n${label}`)
  line("first start to ready", seconds(figures.firstReadyMs), "-", seconds(bare.readyMs), null)
  line("  CPU time until ready", seconds(figures.firstReadyCpuMs), "-", seconds(bare.readyCpuMs), null)
  line(`restart to ready (median of ${restarts})`, seconds(restart), "≤ 1.5 s", seconds(bare.readyMs), restart <= 1500)
  line("  CPU time until ready", seconds(median(figures.restartCpuMs)), "≤ 1.5 s", seconds(bare.readyCpuMs), median(figures.restartCpuMs) <= 1500)
  console.log(`    (restarts: ${figures.restartMs.map(seconds).join(", ")}; CPU ${figures.restartCpuMs.map(seconds).join(", ")})`)
  line("idle RSS after first start", mb(figures.firstIdle), "-", mb(bare.idle), null)
  line("idle RSS after restart", mb(figures.restartIdle), `≤ ${targets.idle} MB`, mb(bare.idle), figures.restartIdle <= targets.idle)
  line(
    "RSS under load (peak)",
    mb(figures.underLoad),
    targets.underLoad === null ? "-" : `≤ ${targets.underLoad} MB`,
    mb(bare.underLoad),
    targets.underLoad === null ? null : figures.underLoad <= targets.underLoad
  )
}

const main = async () => {
  console.log(
    `footprint bench: ${launchName} launcher, Node ${process.version}, ${Os.cpus().length} CPUs, load average ${
      Os.loadavg().map((value) => value.toFixed(1)).join(" ")
    }; idle = VmRSS ${settleMs} ms after ready`
  )
  const bare = await measureBare()
  report("PGlite (embedded)", await measureHerald({}), bare, { idle: 250, underLoad: null })
  const databaseUrl = process.env.DATABASE_URL
  if (databaseUrl === undefined || databaseUrl === "") {
    console.log("\nDATABASE_URL is not set: PostgreSQL skipped.")
    return
  }
  const pg = await withThrowawayDatabase(databaseUrl, (url) => measureHerald({ DATABASE_URL: url }))
  report("PostgreSQL", pg, bare, { idle: 150, underLoad: 300 })
  console.log(`\nload average after: ${Os.loadavg().map((value) => value.toFixed(1)).join(" ")}`)
}

await main()
