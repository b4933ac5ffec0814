// A `herald serve` (or any server) run as a child process for the benchmarks: started and waited
// for until it prints the line with its port, stopped with SIGINT, its memory read from /proc, and
// a throwaway PostgreSQL database to run it on.
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"

export const root = Path.resolve(import.meta.dirname, "..")

export interface Server {
  readonly child: ChildProcess
  readonly origin: string
  readonly output: () => string
}

/** Starts a child process and waits for the line carrying its port. */
export const start = (command: string, args: ReadonlyArray<string>, env: Record<string, string>, ready: RegExp) =>
  new Promise<Server>((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const timer = setTimeout(() => reject(new Error(`not ready within 180 s:\n${output}`)), 180_000)
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const match = ready.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve({ child, origin: `http://127.0.0.1:${match[1]}`, output: () => output })
      }
    }
    child.stdout!.on("data", read)
    child.stderr!.on("data", read)
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code}:\n${output}`))
    })
  })

/** Herald's line once it listens (on loopback, PORT=0). */
export const heraldReady = /listening on http:\/\/127\.0\.0\.1:(\d+)/

export const stop = (server: Server) =>
  new Promise<void>((resolve) => {
    if (server.child.exitCode !== null) return resolve()
    server.child.on("exit", () => resolve())
    server.child.kill("SIGINT")
  })

const statusMb = (pid: number, field: "VmHWM" | "VmRSS") => {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

/** The process's peak resident set (VmHWM), in MB. */
export const peakRssMb = (pid: number) => statusMb(pid, "VmHWM")

/** The process's resident set now (VmRSS), in MB. */
export const rssMb = (pid: number) => statusMb(pid, "VmRSS")

/** Runs fn against a fresh database on the server DATABASE_URL names, dropped afterwards. */
export const withThrowawayDatabase = async <A>(databaseUrl: string, fn: (url: string) => Promise<A>): Promise<A> => {
  const run = (statement: string) =>
    Effect.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 }))
      )
    )
  const name = `herald_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  await run(`CREATE DATABASE ${name}`)
  try {
    const url = new URL(databaseUrl)
    url.pathname = `/${name}`
    return await fn(url.href)
  } finally {
    await run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}

/** A JSON request with a bearer token; throws on any status from 300 up. */
export const call = async (origin: string, path: string, token: string, body?: unknown, method?: string) => {
  const response = await fetch(`${origin}${path}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const reply = { status: response.status, contentType: response.headers.get("content-type") ?? "", body: await response.text() }
  if (response.status >= 300) throw new Error(`${method ?? "GET"} ${path} answered ${response.status}: ${reply.body}`)
  return reply
}

/** An autopilot project with guardrails on, one simulator account and a key with a high rate limit. */
export const prepare = async (origin: string, adminToken: string) => {
  const project = JSON.parse((await call(origin, "/admin/v1/projects", adminToken, {
    name: "bench",
    approval: "autopilot",
    guardrails: {
      banned_words: ["darn", "heck", "gosh", "shoot", "frick"],
      links: { allowed_domains: [], denied_domains: ["bad.example"], block_shorteners: true, max_links: 3 }
    }
  })).body) as { id: string }
  await call(origin, `/admin/v1/projects/${project.id}/accounts`, adminToken, { platform: "x", username: "bench" })
  const key = JSON.parse((await call(origin, `/admin/v1/projects/${project.id}/keys`, adminToken, {
    name: "bench",
    kind: "human",
    scopes: ["posts:read", "posts:write"],
    rate_limit_per_minute: 1_000_000
  })).body) as { key: string }
  return key.key
}

/** The POST body both benchmarks send. */
export const postBody = JSON.stringify({ caption: "Benchmark post with a link https://herald.example/launch", social_accounts: ["x:bench"] })
