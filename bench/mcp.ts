// An MCP tools/call beside the same REST call, in one run, on one `herald serve` process (embedded
// PGlite, HERALD_WORKERS=false), with autocannon at 16 connections: list_accounts against
// GET /api/v1/social-accounts, and check_guardrails against POST /api/v1/guardrails/check. Each
// MCP request is stateless (no initialize first: the connector holds no session), as a client
// sends tools/call. Prints requests/s and p50/p99 of both, and the cost ratio (REST req/s over MCP
// req/s). Each measured load follows an unmeasured warm-up of the same load.
//   npx tsx bench/mcp.ts
// Target: a tool call costs at most 1.5x the REST call.
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { type Figures, load as loadAt, seconds, warmupSeconds } from "./Load.js"

const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
const root = Path.resolve(import.meta.dirname, "..")

const serve = (dataDir: string) =>
  new Promise<{ readonly child: ChildProcess; readonly origin: string }>((resolve, reject) => {
    const child = spawn("npx", ["tsx", "packages/app/src/bin.ts", "serve"], {
      cwd: root,
      env: { ...process.env, HERALD_DATA_DIR: dataDir, PORT: "0", HERALD_WORKERS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
    let output = ""
    const timer = setTimeout(() => reject(new Error(`not ready within 60 s:\n${output}`)), 60_000)
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve({ child, origin: `http://127.0.0.1:${match[1]}` })
      }
    }
    child.stdout!.on("data", read)
    child.stderr!.on("data", read)
  })

const post = async (url: string, token: string, body: unknown, headers: Record<string, string> = {}) => {
  const reply = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
  const text = await reply.text()
  if (reply.status >= 300) throw new Error(`${url} answered ${reply.status}: ${text}`)
  return JSON.parse(text)
}

const load = (url: string, options: Parameters<typeof loadAt>[2]) => loadAt(url, connections, options)

const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }
const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })

const row = (label: string, figures: Figures) =>
  `${label.padEnd(36)} ${figures.rps.toFixed(0).padStart(6)} req/s   p50 ${String(figures.p50).padStart(3)} ms   p99 ${String(figures.p99).padStart(4)} ms` +
  (figures.non2xx + figures.errors > 0 ? `   (${figures.non2xx + figures.errors} failed)` : "")

const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-bench-mcp-"))
const server = await serve(dataDir)
try {
  const credentials = JSON.parse(Fs.readFileSync(Path.join(dataDir, "credentials.json"), "utf8"))
  // A key whose rate limit the load cannot reach (the demo keys allow 60 a minute).
  const { key } = await post(`${server.origin}/admin/v1/projects/${credentials.project_id}/keys`, credentials.admin_token, {
    kind: "agent",
    scopes: ["posts:read", "posts:write"],
    rate_limit_per_minute: 1_000_000
  })
  const auth = { authorization: `Bearer ${key}` }
  const caption = "Our spring collection lands on Friday: twelve new pieces, all made to last."
  // Both sides answer before anything is timed, and the MCP result is the REST body.
  const checked = await post(`${server.origin}/api/mcp`, key, JSON.parse(toolCall("check_guardrails", { caption })), mcpHeaders)
  if (JSON.stringify(checked.result.structuredContent) !== JSON.stringify(await post(`${server.origin}/api/v1/guardrails/check`, key, { caption }))) {
    throw new Error("check_guardrails and POST /guardrails/check disagree")
  }
  const pairs = [
    {
      name: "list accounts",
      rest: () => load(`${server.origin}/api/v1/social-accounts`, { method: "GET", headers: auth }),
      mcp: () => load(`${server.origin}/api/mcp`, { method: "POST", headers: { ...auth, ...mcpHeaders }, body: toolCall("list_accounts", {}) })
    },
    {
      name: "guardrail check",
      rest: () =>
        load(`${server.origin}/api/v1/guardrails/check`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ caption })
        }),
      mcp: () =>
        load(`${server.origin}/api/mcp`, { method: "POST", headers: { ...auth, ...mcpHeaders }, body: toolCall("check_guardrails", { caption }) })
    }
  ]
  console.log(`herald serve (embedded PGlite, API only), ${connections} connections, ${seconds} s each after ${warmupSeconds} s of warm-up`)
  let worst = 0
  for (const pair of pairs) {
    const rest = await pair.rest()
    const mcp = await pair.mcp()
    const ratio = rest.rps / mcp.rps
    worst = Math.max(worst, ratio)
    console.log(row(`REST ${pair.name}`, rest))
    console.log(row(`MCP  ${pair.name}`, mcp))
    console.log(`     cost of the tool call: ${ratio.toFixed(2)}x the REST call`)
  }
  console.log(`target <= 1.5x: ${worst <= 1.5 ? "met" : "NOT met"} (worst ${worst.toFixed(2)}x)`)
} finally {
  await new Promise<void>((resolve) => {
    server.child.on("exit", () => resolve())
    process.kill(-server.child.pid!, "SIGINT")
  })
  Fs.rmSync(dataDir, { recursive: true, force: true })
}
