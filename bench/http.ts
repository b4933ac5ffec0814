// Herald over HTTP against a bare node:http server answering the same bytes, in one run, with
// autocannon at 32 connections: GET /api/v1/posts?limit=50 and POST /api/v1/posts (autopilot
// project, one simulator target, guardrails on). On the embedded PGlite store, and on PostgreSQL
// when DATABASE_URL is set (in a throwaway database, dropped at the end), there both with the workers
// in the server process and with the API process alone (HERALD_WORKERS=false). Prints requests/s,
// p50/p99 latency, peak RSS of each server and the ratio to the bare server, and the median latency
// of a GET and a POST sent one at a time beforehand. Each measured load follows an unmeasured
// warm-up of the same load (BENCH_WARMUP_SECONDS, default 2), on every server alike.
//   npx tsx --conditions=herald-source bench/http.ts                       (PGlite only)
//   DATABASE_URL=postgres://127.0.0.1:5432/postgres npx tsx --conditions=herald-source bench/http.ts
// Targets: POST >= 1,000 req/s with p99 < 50 ms at 32 connections on PostgreSQL; GET >= 0.3 of bare.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { call, heraldReady, peakRssMb, postBody, prepare, start, stop, withThrowawayDatabase } from "./HeraldProcess.js"
import { type Figures, load as loadAt, seconds } from "./Load.js"

const connections = 32

// The bare server: node:http answering every request with the bytes Herald answered, after
// reading the request body (as Herald must).
const bareScript = `
const http = require("node:http")
const replies = JSON.parse(process.env.BENCH_REPLIES)
const server = http.createServer((req, res) => {
  const reply = replies[req.method] ?? replies.GET
  req.on("data", () => {})
  req.on("end", () => {
    res.writeHead(reply.status, { "content-type": reply.contentType, "content-length": Buffer.byteLength(reply.body) })
    res.end(reply.body)
  })
})
server.listen(0, "127.0.0.1", () => console.log("bare listening on " + server.address().port))
`

const load = (url: string, options: Parameters<typeof loadAt>[2]) => loadAt(url, connections, options)

const unloadedRuns = 30

/** The median latency of a request sent alone, after a few to warm up (ms). */
const unloaded = async (send: () => Promise<unknown>) => {
  for (let i = 0; i < 5; i++) await send()
  const times: Array<number> = []
  for (let i = 0; i < unloadedRuns; i++) {
    const started = performance.now()
    await send()
    times.push(performance.now() - started)
  }
  return times.sort((a, b) => a - b)[Math.floor(unloadedRuns / 2)]!
}

const fmt = (value: number, digits = 0) => value.toFixed(digits).padStart(7)

const row = (label: string, figures: Figures, rss: number, bare: Figures | null) =>
  `${label.padEnd(24)} ${fmt(figures.rps)} req/s   p50 ${fmt(figures.p50, 1)} ms   p99 ${fmt(figures.p99, 1)} ms   ` +
  `peak RSS ${fmt(rss)} MB` +
  (bare === null ? "" : `   ratio ${(figures.rps / bare.rps).toFixed(2)}`) +
  (figures.non2xx + figures.errors > 0 ? `   (${figures.non2xx} non-2xx, ${figures.errors} errors)` : "")

/** The bare server answering Herald's bytes, loaded with the same requests. */
const loadBare = async (replies: { readonly GET: unknown; readonly POST: unknown }, headers: Record<string, string>) => {
  const bare = await start(process.execPath, ["-e", bareScript], { BENCH_REPLIES: JSON.stringify(replies) }, /bare listening on (\d+)/)
  try {
    const bareGet = await load(`${bare.origin}/api/v1/posts?limit=50`, { method: "GET", headers })
    const barePost = await load(`${bare.origin}/api/v1/posts`, { method: "POST", headers, body: postBody })
    return { bareGet, barePost, bareRss: peakRssMb(bare.child.pid!) }
  } finally {
    await stop(bare)
  }
}

/**
 * One database: Herald started on it, its GET loaded, then the bare server with Herald's bytes
 * while Herald idles, then Herald's POST and the floor. The bare server runs where Herald's GET
 * ran: before the POST load, whose backlog Herald's workers would still be publishing, and whose
 * rows the database would still be checkpointing and vacuuming (which slowed a bare server loaded
 * after it and flattered the ratio: bench/README.md, HTTP).
 */
const runOn = async (label: string, env: Record<string, string>) => {
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-bench-"))
  const herald = await start(
    process.execPath,
    ["--conditions=herald-source", "--import", "tsx", "packages/app/src/bin.ts", "serve"],
    { PORT: "0", HERALD_DATA_DIR: dataDir, DATABASE_URL: "", ...env },
    heraldReady
  )
  const measured = await (async () => {
    try {
      const credentials = JSON.parse(Fs.readFileSync(Path.join(dataDir, "credentials.json"), "utf8")) as { admin_token: string }
      const key = await prepare(herald.origin, credentials.admin_token)
      for (let i = 0; i < 50; i++) await call(herald.origin, "/api/v1/posts", key, JSON.parse(postBody))
      const listReply = await call(herald.origin, "/api/v1/posts?limit=50", key)
      const createReply = await call(herald.origin, "/api/v1/posts", key, JSON.parse(postBody))
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
      const unloadedGet = await unloaded(() => call(herald.origin, "/api/v1/posts?limit=50", key))
      const unloadedPost = await unloaded(() => call(herald.origin, "/api/v1/posts", key, JSON.parse(postBody)))
      const heraldGet = await load(`${herald.origin}/api/v1/posts?limit=50`, { method: "GET", headers })
      const bare = await loadBare({ GET: listReply, POST: createReply }, headers)
      const heraldPost = await load(`${herald.origin}/api/v1/posts`, { method: "POST", headers, body: postBody })
      // The floor of the HTTP stack itself: a path no route serves (router, 404 body), no key, no database.
      const heraldFloor = await load(`${herald.origin}/bench/unknown`, { method: "GET", headers: {} })
      return { ...bare, listReply, unloadedGet, unloadedPost, heraldGet, heraldPost, heraldFloor, heraldRss: peakRssMb(herald.child.pid!) }
    } finally {
      await stop(herald)
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })()
  const { bareGet, barePost, bareRss, heraldFloor, heraldGet, heraldPost, heraldRss, listReply, unloadedGet, unloadedPost } = measured
  console.log(`\n${label} (${connections} connections, ${seconds} s each; GET body ${listReply.body.length} bytes)`)
  console.log(row("  bare   GET /posts", bareGet, bareRss, null))
  console.log(row("  Herald GET /posts", heraldGet, heraldRss, bareGet))
  console.log(row("  bare   POST /posts", barePost, bareRss, null))
  console.log(row("  Herald POST /posts", heraldPost, heraldRss, barePost))
  console.log(row("  Herald 404 (floor)", { ...heraldFloor, non2xx: 0 }, heraldRss, bareGet))
  console.log(`  one request at a time (median of ${unloadedRuns}): GET /posts ${unloadedGet.toFixed(1)} ms, POST /posts ${unloadedPost.toFixed(1)} ms`)
  return { heraldGet, heraldPost, bareGet }
}

const verdict = (name: string, met: boolean, detail: string) => console.log(`  ${name}: ${met ? "met" : "NOT met"} (${detail})`)

const main = async () => {
  console.log(`Node ${process.version}, ${Os.cpus().length} CPUs; autocannon, server and database share this machine.`)
  const pglite = await runOn("PGlite (embedded)", {})
  verdict("GET >= 0.3 of bare on PGlite", pglite.heraldGet.rps >= 0.3 * pglite.bareGet.rps, `${(pglite.heraldGet.rps / pglite.bareGet.rps).toFixed(2)}`)
  const databaseUrl = process.env.DATABASE_URL
  if (databaseUrl === undefined || databaseUrl === "") {
    console.log("\nDATABASE_URL is not set: PostgreSQL skipped.")
    return
  }
  const verdicts = (where: string, figures: Awaited<ReturnType<typeof runOn>>) => {
    verdict(
      `POST >= 1,000 req/s with p99 < 50 ms on ${where}`,
      figures.heraldPost.rps >= 1000 && figures.heraldPost.p99 < 50,
      `${figures.heraldPost.rps.toFixed(0)} req/s, p99 ${figures.heraldPost.p99} ms`
    )
    verdict(`GET >= 0.3 of bare on ${where}`, figures.heraldGet.rps >= 0.3 * figures.bareGet.rps, `${(figures.heraldGet.rps / figures.bareGet.rps).toFixed(2)}`)
  }
  const pg = await withThrowawayDatabase(databaseUrl, (url) => runOn("PostgreSQL", { DATABASE_URL: url }))
  verdicts("PostgreSQL", pg)
  // The scale-out shape: the API process alone, its workers elsewhere (here: none, so every post
  // it accepts waits queued); what the API itself sustains, without publishing on the same cores.
  const apiOnly = await withThrowawayDatabase(
    databaseUrl,
    (url) => runOn("PostgreSQL, API process only (HERALD_WORKERS=false)", { DATABASE_URL: url, HERALD_WORKERS: "false" })
  )
  verdicts("PostgreSQL, API process only", apiOnly)
}

await main()
