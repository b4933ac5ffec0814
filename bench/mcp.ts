// An MCP tools/call beside the same REST call, in one run, on one `herald serve` process (embedded
// PGlite, HERALD_WORKERS=false), with autocannon at 16 connections: list_accounts against
// GET /api/v1/social-accounts, list_posts against GET /api/v1/posts?limit=20 (20 posts made first),
// and check_guardrails against POST /api/v1/guardrails/check, all with the same key in the same
// Authorization header. Each MCP request is stateless (no initialize first: the connector holds no
// session), as a client sends tools/call. Prints requests/s, p50/p99 and the server's CPU time per
// request of both, and the cost ratios (REST req/s over MCP req/s; MCP CPU over REST CPU per
// request). Every load runs once unmeasured before any is measured, and each measured load follows
// an unmeasured warm-up of the same load.
//   npx tsx --conditions=herald-source bench/mcp.ts [tool ...]   (only the pairs of the tools named; every pair when none is)
// Target: a tool call costs at most 1.5x the REST call.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { heraldReady, start, stop } from "./HeraldProcess.js"
import { type Figures, load as loadAt, seconds, warmupSeconds } from "./Load.js"
import { cpuMsOf } from "./ProcessCpu.js"

const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)

const post = async (url: string, token: string, body: unknown) => {
  const reply = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const text = await reply.text()
  if (reply.status >= 300) throw new Error(`${url} answered ${reply.status}: ${text}`)
  return JSON.parse(text)
}

const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }
const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })

const micros = (value: number | null) => (value === null ? "  ?" : value.toFixed(0)).padStart(5)
const row = (label: string, figures: Figures) =>
  `${label.padEnd(24)} ${figures.rps.toFixed(0).padStart(6)} req/s   p50 ${String(figures.p50).padStart(3)} ms   p99 ${String(figures.p99).padStart(4)} ms` +
  `   server CPU ${micros(figures.cpuMicrosPerRequest)} µs/req` +
  (figures.non2xx + figures.errors > 0 ? `   (${figures.non2xx + figures.errors} failed)` : "")

/** A tool and the REST request that answers the same. */
interface Pair {
  readonly name: string
  readonly rest: { readonly method: "GET" | "POST"; readonly path: string; readonly body?: unknown }
  readonly tool: string
  readonly args: Record<string, unknown>
}

const caption = "Our spring collection lands on Friday: twelve new pieces, all made to last."
const allPairs: ReadonlyArray<Pair> = [
  { name: "list accounts", rest: { method: "GET", path: "/social-accounts" }, tool: "list_accounts", args: {} },
  { name: "list posts", rest: { method: "GET", path: "/posts?limit=20" }, tool: "list_posts", args: { limit: 20 } },
  { name: "guardrail check", rest: { method: "POST", path: "/guardrails/check", body: { caption } }, tool: "check_guardrails", args: { caption } }
]
const named = process.argv.slice(2)
const unknown = named.filter((tool) => !allPairs.some((pair) => pair.tool === tool))
if (unknown.length > 0) throw new Error(`no pair for ${unknown.join(", ")}: the pairs are ${allPairs.map((pair) => pair.tool).join(", ")}`)
const pairs = named.length === 0 ? allPairs : allPairs.filter((pair) => named.includes(pair.tool))

const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-bench-mcp-"))
// node itself (not npx), so that the child's pid is the server's, whose CPU time is read.
const server = await start(
  process.execPath,
  ["--conditions=herald-source", "--import", "tsx", "packages/app/src/bin.ts", "serve"],
  { HERALD_DATA_DIR: dataDir, PORT: "0", HERALD_WORKERS: "false" },
  heraldReady
)
try {
  const credentials = JSON.parse(Fs.readFileSync(Path.join(dataDir, "credentials.json"), "utf8"))
  // A key whose rate limit the load cannot reach (the demo keys allow 60 a minute).
  const { key } = await post(`${server.origin}/admin/v1/projects/${credentials.project_id}/keys`, credentials.admin_token, {
    kind: "agent",
    scopes: ["posts:read", "posts:write"],
    rate_limit_per_minute: 1_000_000
  })
  for (let n = 0; n < 20; n++) {
    await post(`${server.origin}/api/v1/posts`, key, { caption: `${caption} (${n})`, social_accounts: ["x:herald_demo"] })
  }
  const auth = { authorization: `Bearer ${key}` }
  const cpuMs = () => cpuMsOf([server.child.pid!])
  const restLoad = ({ rest }: Pair) => ({
    url: `${server.origin}/api/v1${rest.path}`,
    method: rest.method,
    headers: rest.body === undefined ? auth : { ...auth, "content-type": "application/json" },
    ...(rest.body === undefined ? {} : { body: JSON.stringify(rest.body) })
  })
  const mcpLoad = ({ args, tool }: Pair) => ({
    url: `${server.origin}/api/mcp`,
    method: "POST" as const,
    headers: { ...auth, ...mcpHeaders },
    body: toolCall(tool, args)
  })
  // Both sides answer before anything is timed, and each tool's result is its REST body.
  for (const pair of pairs) {
    const { url: restUrl, ...restInit } = restLoad(pair)
    const restReply = await fetch(restUrl, restInit)
    const { url: mcpUrl, ...mcpInit } = mcpLoad(pair)
    const mcpReply = (await (await fetch(mcpUrl, mcpInit)).json()) as { readonly result?: { readonly structuredContent?: unknown } }
    if (JSON.stringify(mcpReply.result?.structuredContent) !== JSON.stringify(await restReply.json())) {
      throw new Error(`${pair.tool} and ${pair.rest.method} ${pair.rest.path} disagree`)
    }
  }
  console.log(`herald serve (embedded PGlite, API only), ${connections} connections, ${seconds} s each after ${warmupSeconds} s of warm-up`)
  // Every load once, unmeasured, before any is measured: otherwise the first pair measured runs on a
  // process the others have not yet warmed (its REST side came out slower than its tool call).
  for (const pair of pairs) {
    for (const { url, ...init } of [restLoad(pair), mcpLoad(pair)]) await loadAt(url, connections, init)
  }
  let worst = 0
  let worstCpu = 0
  for (const pair of pairs) {
    const { url: restUrl, ...restInit } = restLoad(pair)
    const rest = await loadAt(restUrl, connections, { ...restInit, cpuMs })
    const { url: mcpUrl, ...mcpInit } = mcpLoad(pair)
    const mcp = await loadAt(mcpUrl, connections, { ...mcpInit, cpuMs })
    const ratio = rest.rps / mcp.rps
    worst = Math.max(worst, ratio)
    console.log(row(`REST ${pair.name}`, rest))
    console.log(row(`MCP  ${pair.tool}`, mcp))
    const cpuRatio = rest.cpuMicrosPerRequest === null || mcp.cpuMicrosPerRequest === null ? null : mcp.cpuMicrosPerRequest / rest.cpuMicrosPerRequest
    if (cpuRatio !== null) worstCpu = Math.max(worstCpu, cpuRatio)
    console.log(`     cost of the tool call: ${ratio.toFixed(2)}x the REST call in req/s, ${cpuRatio === null ? "?" : cpuRatio.toFixed(2)}x in server CPU`)
  }
  console.log(`target <= 1.5x: ${worst <= 1.5 ? "met" : "NOT met"} in req/s (worst ${worst.toFixed(2)}x); ` +
    `${worstCpu <= 1.5 ? "met" : "NOT met"} in server CPU per request (worst ${worstCpu.toFixed(2)}x)`)
} finally {
  await stop(server)
  Fs.rmSync(dataDir, { recursive: true, force: true })
}
