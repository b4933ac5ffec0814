import { Aggregator } from "@herald/publishers"
import { fakeDirectRoute, fakePlatform, OAuthFake } from "@herald/publishers/testing"
import { AyrshareFake } from "@herald/publishers/testing/aggregator"
import { Layer, Logger, LogLevel, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, publishAndWait, startHerald, type TestHerald } from "./TestHerald.js"

/**
 * A full run seen from the operator's side: every line the logger writes (JSON, debug and up)
 * is kept, a flow that handles every kind of secret Herald holds is run (API keys, the admin
 * token, an account's OAuth tokens and the platform's client secret, an aggregator's API key and
 * Profile-Key, an app password, a webhook's signing secret, an approval link's token, the MCP key
 * in a path, the storage secrets), and no line holds any of
 * them; the access log, X-Request-Id and the Prometheus page are read on the same run.
 */
const variables = {
  HERALD_THREADS_API_URL: "",
  HERALD_THREADS_AUTH_URL: "",
  HERALD_THREADS_CLIENT_ID: "herald-observability-client",
  HERALD_THREADS_CLIENT_SECRET: "herald-observability-client-secret-0123456789",
  HERALD_AYRSHARE_API_URL: ""
}
const ayrshareKey = "AYR-OBSERVABILITY-API-KEY-0123456789"
const ayrshareProfile = "AYR-OBSERVABILITY-PROFILE-KEY-0123456789"

const lines: Array<string> = []
const collector = Layer.merge(
  Logger.replace(Logger.defaultLogger, Logger.map(Logger.jsonLogger, (line) => void lines.push(line))),
  Logger.minimumLogLevel(LogLevel.Debug)
)

let fake: OAuthFake
let ayrshare: AyrshareFake
let herald: TestHerald

beforeAll(async () => {
  fake = new OAuthFake({ clientId: variables.HERALD_THREADS_CLIENT_ID, clientSecret: variables.HERALD_THREADS_CLIENT_SECRET })
  await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve))
  ayrshare = await new AyrshareFake({
    apiKey: ayrshareKey,
    profiles: { [ayrshareProfile]: { username: "acme.studio", instagramId: "17841400000000009" } }
  }).start()
  Object.assign(process.env, {
    ...variables,
    HERALD_THREADS_API_URL: fake.url,
    HERALD_THREADS_AUTH_URL: fake.url,
    HERALD_AYRSHARE_API_URL: ayrshare.apiUrl
  })
  herald = await startHerald({ directRoutes: [fakeDirectRoute, Aggregator.instagramAggregatorRoute], observability: collector })
}, 60_000)

afterAll(async () => {
  await herald?.close()
  await fake?.close()
  await ayrshare?.stop()
  for (const name of Object.keys(variables)) delete process.env[name]
})

const admin = (path: string, body?: unknown) =>
  herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, {
    token: herald.credentials.admin_token,
    ...(body === undefined ? {} : { method: "POST", json: body })
  })

/** The access-log lines (message "request"), parsed. */
const accessLog = () =>
  lines.map((line) => JSON.parse(line)).filter((entry) => entry.message === "request").map((entry) => entry.annotations)

describe("logs, request ids and metrics on a full run", () => {
  const secrets: Array<string> = []

  it("runs a flow through every secret Herald holds", async () => {
    const { admin_token, agent_key, human_key } = herald.credentials
    secrets.push(admin_token, agent_key, human_key, variables.HERALD_THREADS_CLIENT_SECRET)
    secrets.push(Redacted.value(herald.secrets.credentialsKey), Redacted.value(herald.secrets.approvalSecret))

    // An account connected through OAuth: its tokens are Herald's alone from here on.
    const started = await json(await admin("/accounts/oauth", { platform: fakePlatform }))
    const consented = await fetch(started.authorize_url, { redirect: "manual" })
    const callback = new URL(consented.headers.get("location")!)
    expect((await fetch(`${herald.origin}${callback.pathname}${callback.search}`)).status).toBe(200)
    const receipt = await publishAndWait(herald, "published through OAuth", [`${fakePlatform}:acme`])
    expect(receipt.post_status).toBe("posted")
    for (const grant of fake["grants"]) secrets.push(grant.access, grant.refresh)
    expect(fake["grants"].length).toBeGreaterThan(0)

    // An Instagram account connected through the aggregator with its keys, then keys it refuses,
    // and an app password refused for being too long: none of them is written anywhere.
    secrets.push(ayrshareKey, ayrshareProfile)
    const keyed = await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/accounts`, {
      method: "POST",
      token: admin_token,
      json: { platform: "instagram", username: "acme.studio", route: "aggregator", api_key: ayrshareKey, profile_key: ayrshareProfile }
    })
    expect(keyed.status).toBe(201)
    const wrongAyrshareKey = `${ayrshareKey}-REVOKED`
    secrets.push(wrongAyrshareKey)
    const refusedKeys = await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/accounts`, {
      method: "POST",
      token: admin_token,
      json: { platform: "instagram", username: "acme.studio", route: "aggregator", api_key: wrongAyrshareKey, profile_key: ayrshareProfile }
    })
    expect(refusedKeys.status).toBe(400)
    const appPassword = `observability-app-password-${"p".repeat(300)}`
    secrets.push(appPassword.slice(0, 40))
    expect((await admin("/accounts/login", { platform: "bluesky", identifier: "acme.bsky.social", password: appPassword })).status).toBe(400)

    // A webhook endpoint: its signing secret is shown once, in the reply.
    const webhook = await admin("/webhooks", { url: "https://hooks.example.com/herald", kinds: ["post.published"] })
    expect(webhook.status).toBe(201)
    secrets.push((await json(webhook)).secret)

    // An agent's post waits for approval: its link carries a token; the page is opened.
    const pending = await herald.call("/api/v1/posts", {
      method: "POST",
      token: agent_key,
      json: { caption: "waiting for a person", social_accounts: ["x:herald_demo"] }
    })
    expect(pending.status).toBe(201)
    const approvalUrl = new URL((await json(pending)).approval_url)
    secrets.push(approvalUrl.pathname.split("/").at(-1)!)
    expect((await fetch(`${herald.origin}${approvalUrl.pathname}`)).status).toBe(200)

    // The MCP connector with the key in its path.
    const mcp = await fetch(`${herald.origin}/api/mcp/${agent_key}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(mcp.status).toBe(200)

    // A refused key and a refused admin token put what was presented nowhere either.
    const wrongKey = `hk_live_${"z".repeat(43)}`
    secrets.push(wrongKey)
    expect((await herald.call("/api/v1/posts", { token: wrongKey })).status).toBe(401)
    expect((await herald.call("/metrics", { token: wrongKey })).status).toBe(401)

    expect(secrets.every((secret) => secret.length >= 16)).toBe(true)
  }, 60_000)

  it("writes no secret in any log line", () => {
    expect(lines.length).toBeGreaterThan(10)
    const leaks = secrets.flatMap((secret) => lines.filter((line) => line.includes(secret)).map((line) => ({ secret: secret.slice(0, 6), line })))
    expect(leaks).toEqual([])
  })

  it("writes one access-log line per request: method, route pattern, status, duration, key id, request id", async () => {
    const reply = await herald.call("/api/v1/posts?limit=1", { token: herald.credentials.human_key, headers: { "x-request-id": "trace-abc.123" } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get("x-request-id")).toBe("trace-abc.123")
    const keys = await json(await admin("/keys"))
    const humanKeyId = keys.data.find((key: { kind: string }) => key.kind === "human").id
    const line = accessLog().find((entry) => entry.request_id === "trace-abc.123")
    expect(line).toMatchObject({ method: "GET", route: "/api/v1/posts", status: 200, key_id: humanKeyId })
    expect(typeof line.duration_ms).toBe("number")
    const mcp = accessLog().find((entry) => entry.route === "/api/mcp/:key")
    expect(mcp).toMatchObject({ method: "POST", status: 200 })
    expect(mcp.key_id).not.toBeNull()
    expect(accessLog().find((entry) => entry.route === "/admin/v1/projects/:project_id/webhooks")?.key_id).toBe("admin")
  })

  it("generates a request id when none is sent, and refuses a malformed one naming the header", async () => {
    const generated = await fetch(`${herald.origin}/health/live`)
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    const refused = await fetch(`${herald.origin}/health/live`, { headers: { "x-request-id": "has spaces in it" } })
    expect(refused.status).toBe(400)
    expect(await json(refused)).toMatchObject({ code: "invalid_request_id", violations: [{ field: "X-Request-Id" }] })
    const long = await fetch(`${herald.origin}/health/live`, { headers: { "x-request-id": "a".repeat(129) } })
    expect(long.status).toBe(400)
  })

  it("writes the worker's events as structured lines: claimed, then published with its platform", () => {
    const events = lines.map((line) => JSON.parse(line)).filter((entry) => typeof entry.annotations?.event === "string")
    expect(events.some((entry) => entry.annotations.event === "delivery.claimed" && typeof entry.annotations.delivery_id === "string")).toBe(true)
    expect(events.some((entry) => entry.annotations.event === "delivery.published" && entry.annotations.platform === fakePlatform)).toBe(true)
  })

  it("serves the Prometheus text format behind the admin token", async () => {
    expect((await fetch(`${herald.origin}/metrics`)).status).toBe(401)
    const reply = await herald.call("/metrics", { token: herald.credentials.admin_token })
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toContain("text/plain; version=0.0.4")
    const samples = parsePrometheus(await reply.text())
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, v]) => sample.labels[key] === v))?.value
    expect(value("herald_http_requests_total", { method: "POST", route: "/api/v1/posts", status: "201" })).toBeGreaterThanOrEqual(2)
    expect(value("herald_http_request_duration_seconds_count", { method: "POST", route: "/api/v1/posts", status: "201" })).toBeGreaterThanOrEqual(2)
    expect(value("herald_http_request_duration_seconds_bucket", { route: "/api/v1/posts", status: "201", le: "+Inf" })).toBeGreaterThanOrEqual(2)
    expect(value("herald_deliveries_total", { platform: fakePlatform, outcome: "published" })).toBeGreaterThanOrEqual(1)
    expect(value("herald_deliveries_due")).toBeGreaterThanOrEqual(0)
    expect(value("herald_deliveries_oldest_due_seconds")).toBeGreaterThanOrEqual(0)
    expect(value("herald_webhook_sends_pending")).toBeGreaterThanOrEqual(0)
    expect(value("herald_worker_heartbeat_age_seconds", { kind: "dispatcher" })).toBeGreaterThanOrEqual(0)
    expect(value("herald_worker_heartbeats_total", { kind: "dispatcher" })).toBeGreaterThanOrEqual(1)
  })
})

interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/**
 * The text exposition format, strictly: every family has HELP and TYPE before its samples, every
 * other line is `name{label="value",...} number`. Throws on a line that is neither.
 */
const parsePrometheus = (text: string): Array<Sample> => {
  const typed = new Set<string>()
  const samples: Array<Sample> = []
  for (const line of text.split("\n")) {
    if (line === "") continue
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line)
    if (comment !== null) {
      if (comment[1] === "TYPE") {
        expect(["counter", "gauge", "histogram"]).toContain(comment[3])
        typed.add(comment[2]!)
      }
      continue
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (sample === null) throw new Error(`not a Prometheus sample line: ${line}`)
    const name = sample[1]!
    expect(typed.has(name) || typed.has(name.replace(/_(bucket|sum|count)$/, ""))).toBe(true)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (sample[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = value!.replace(/\\n/g, "\n").replace(/\\"/g, "\"").replace(/\\\\/g, "\\")
    }
    const value = sample[3] === "+Inf" ? Infinity : Number(sample[3])
    expect(Number.isNaN(value)).toBe(false)
    samples.push({ name, labels, value })
  }
  return samples
}
