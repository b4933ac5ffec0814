// Signed webhook sends per second to a loopback receiver (`npx tsx --conditions=herald-source bench/webhooks.ts`).
//
// Three phases in one run, same receiver, same concurrency:
//   plain      - unsigned POSTs through a bare keep-alive undici Agent (the transport's ceiling);
//   signed     - `send()` from @herald/webhooks: HMAC signing, the outbound guard (connect-time
//                address checks, deadline, capped reply), the 512-byte reply prefix, the outcome;
//   dispatched - the WebhookDispatcher over the real storage (embedded PGlite, or PostgreSQL when
//                DATABASE_URL is set): claims under leases, sends, logs every attempt and
//                completes each send, until every queued send is delivered.
// The receiver checks every signed request with the exported `verify()`, so a fast but wrong
// sender cannot pass. Plain http on 127.0.0.1 uses the guard's test-only loopback allowance.
import { randomBytes, randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import {
  AccountAdmin,
  AccountConnections,
  AccountId,
  deadLogin,
  deadLoginData,
  EventId,
  noGuardrails,
  OutboxEvent,
  Project,
  ProjectAdmin,
  ProjectId,
  SocialAccount,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpoints
} from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { StorageLive } from "@herald/storage-postgres"
import { makeWebhookRequest, send, verify, WebhookDispatcher } from "@herald/webhooks"
import { Config, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { Agent, request } from "undici"

const concurrency = 32
const warmupMillis = 1_000
const phaseMillis = 5_000
const target = 1_000
const secret = "whsec_bench"
/** The dispatched phase: every event goes to every endpoint. */
const endpointCount = 500
const eventCount = 6

const webhook = makeWebhookRequest(
  new OutboxEvent({
    id: EventId.make("0b7d8c1e-5a39-4f4f-9c1e-0d3b6f2a7e10"),
    projectId: ProjectId.make("5e0a4c2b-1f3d-4e6a-8b7c-9d0e1f2a3b4c"),
    kind: "post.published",
    createdAt: DateTime.unsafeMake("2026-03-01T12:00:00.000Z"),
    data: {
      post: { id: "9f8e7d6c-0000-4000-8000-000000000001", caption: "Launch day", status: "published", delivered: 2, targets: 2 },
      deliveries: [
        { platform: "x", username: "acme", status: "success", url: "https://x.com/acme/status/1", error: null },
        { platform: "bluesky", username: "acme.bsky.social", status: "success", url: "https://bsky.app/profile/acme/post/1", error: null }
      ]
    }
  }),
  { id: ProjectId.make("5e0a4c2b-1f3d-4e6a-8b7c-9d0e1f2a3b4c"), name: "Acme" },
  WebhookEndpointId.make("a1a1a1a1-0000-4000-8000-000000000001")
)

const counts = { signed: 0, plain: 0, badSignatures: 0 }
const server = createServer((req, res) => {
  const parts: Array<Buffer> = []
  req.on("data", (part: Buffer) => parts.push(part))
  req.on("end", () => {
    if (req.headers["x-service-signature"] === undefined) {
      counts.plain++
    } else if (verify(Buffer.concat(parts), req.headers, secret)._tag === "Right") {
      counts.signed++
    } else {
      counts.badSignatures++
    }
    res.writeHead(200, { "content-type": "text/plain" }).end("ok")
  })
})
await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`

interface Rate {
  /** Sends per wall-clock second. */
  readonly wall: number
  /** Sends per CPU-second of this process (sender and receiver together): steadier on a busy box. */
  readonly cpu: number
}

/** Sends from `concurrency` workers, each sending one after another until the deadline. */
const measure = <E, R>(sendOne: Effect.Effect<boolean, E, R>, millis: number): Effect.Effect<Rate, E | string, R> =>
  Effect.gen(function*() {
    let done = 0
    const started = performance.now()
    const cpuBefore = process.cpuUsage()
    const worker = Effect.gen(function*() {
      while (performance.now() - started < millis) {
        if (!(yield* sendOne)) return yield* Effect.fail("a send was not accepted")
        done++
      }
    })
    yield* Effect.all(Array.from({ length: concurrency }, () => worker), { concurrency: "unbounded", discard: true })
    const cpu = process.cpuUsage(cpuBefore)
    return { wall: done / ((performance.now() - started) / 1000), cpu: done / ((cpu.user + cpu.system) / 1e6) }
  })

const plainAgent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 })
const plainSend = Effect.promise(async () => {
  const response = await request(url, {
    dispatcher: plainAgent,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: webhook.body
  })
  await response.body.text()
  return response.statusCode === 200
})

const signedSend = send({ url, secret }, webhook).pipe(Effect.map((result) => result.outcome._tag === "Accepted"))

const guard = OutboundGuard.layer({ allowLoopback: true, production: false, connectionsPerOrigin: concurrency })

const { plain, signed } = await Effect.runPromise(
  Effect.gen(function*() {
    yield* measure(signedSend, warmupMillis)
    yield* measure(plainSend, warmupMillis)
    return { plain: yield* measure(plainSend, phaseMillis), signed: yield* measure(signedSend, phaseMillis) }
  }).pipe(Effect.provide(guard))
)

/**
 * Queues eventCount x endpointCount sends through the storage ports (one project, its endpoints,
 * account.needs_reconnect events fanned out in their transactions), then times a dispatcher from
 * its start until the last send is marked sent.
 */
const dispatched = Effect.gen(function*() {
  const project = new Project({
    id: ProjectId.make(randomUUID()),
    name: "Bench",
    timezone: "UTC",
    approval: "autopilot",
    signature: "",
    guardrails: noGuardrails,
    plan: "active"
  })
  yield* Effect.flatMap(ProjectAdmin, (admin) => admin.create(project))
  const endpoints = yield* WebhookEndpoints
  for (let index = 0; index < endpointCount; index++) {
    yield* endpoints.create(
      new WebhookEndpoint({
        id: WebhookEndpointId.make(randomUUID()),
        projectId: project.id,
        url,
        kinds: ["account.needs_reconnect"],
        enabled: true,
        consecutiveFailures: 0,
        lastError: null,
        createdAt: yield* DateTime.now
      }),
      Redacted.make(secret)
    )
  }
  const sql = yield* SqlClient.SqlClient
  const sent = sql<{ readonly sent: number }>`
    SELECT count(*)::int AS sent FROM webhook_sends s JOIN webhook_endpoints w ON w.id = s.endpoint_id
    WHERE w.project_id = ${project.id} AND s.status = 'sent'`.pipe(Effect.map(([row]) => row!.sent), Effect.orDie)
  // The events are queued before the dispatcher starts, so the timing covers sending alone.
  for (let index = 0; index < eventCount; index++) {
    const account = new SocialAccount({
      id: AccountId.make(randomUUID()),
      projectId: project.id,
      platform: "x",
      username: `bench_${index}`,
      route: "simulator",
      status: "active"
    })
    yield* Effect.flatMap(AccountAdmin, (admin) => admin.connect(account, { access_token: "token" }))
    const event = new OutboxEvent({
      id: EventId.make(randomUUID()),
      projectId: project.id,
      kind: "account.needs_reconnect",
      createdAt: yield* DateTime.now,
      data: deadLoginData(account, deadLogin(account, "bench"), yield* DateTime.now)
    })
    yield* Effect.flatMap(AccountConnections, (connections) => connections.markNeedsReconnect(account.id, event, { ...deadLogin(account, "bench"), id: randomUUID() }))
  }
  const before = counts.signed
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  const total = endpointCount * eventCount
  yield* Effect.scoped(Effect.gen(function*() {
    yield* Layer.build(WebhookDispatcher.layer({ concurrency }).pipe(Layer.provide(guard)))
    while ((yield* sent) < total) yield* Effect.sleep("20 millis")
  }))
  const cpu = process.cpuUsage(cpuBefore)
  if (counts.signed - before !== total) return yield* Effect.fail(`the receiver verified ${counts.signed - before} of ${total}`)
  return { wall: total / ((performance.now() - started) / 1000), cpu: total / ((cpu.user + cpu.system) / 1e6) } satisfies Rate
})

const dataDir = mkdtempSync(join(tmpdir(), "herald-bench-webhooks-"))
const databaseUrl = await Effect.runPromise(Config.option(Config.redacted("DATABASE_URL")))
const dispatchedRate = await Effect.runPromise(
  dispatched.pipe(
    Effect.provide(StorageLive.layer({ databaseUrl, dataDir, credentialsKey: Redacted.make(randomBytes(32).toString("base64")) }))
  )
)
rmSync(dataDir, { recursive: true, force: true })

await plainAgent.close()
server.close()

const row = (label: string, rate: Rate) =>
  `  ${label.padEnd(22)}${rate.wall.toFixed(0).padStart(7)} /s wall ${rate.cpu.toFixed(0).padStart(7)} /s per CPU-second`
console.log(`webhooks bench: ${concurrency} concurrent senders, keep-alive, loopback receiver verifying every signed request`)
console.log(row("plain unsigned sends", plain))
console.log(row("signed sends", signed))
console.log(`  signed / plain        ${(signed.wall / plain.wall).toFixed(2)} wall, ${(signed.cpu / plain.cpu).toFixed(2)} per CPU-second`)
console.log(row("dispatched sends", dispatchedRate) +
  ` (${eventCount} events x ${endpointCount} endpoints on ${Option.isSome(databaseUrl) ? "PostgreSQL" : "PGlite"}: claim, send, log, complete)`)
console.log(`  receiver counted ${counts.signed} verified signed, ${counts.plain} plain, ${counts.badSignatures} bad signatures`)
const met = signed.wall >= target
console.log(`  target >= ${target} signed sends/s (wall): ${met ? "met" : "NOT met"}`)
if (counts.badSignatures > 0 || !met) process.exitCode = 1
