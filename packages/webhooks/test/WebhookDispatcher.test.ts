// The dispatcher end to end: real storage (PGlite through StorageLive), a real HTTPS receiver on
// loopback, and TestClock driving the retry schedule. Only the network deadline runs in real time.
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import { type LookupAddress, promises as dns } from "node:dns"
import { SqlClient } from "@effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  AccountAdmin,
  AccountConnections,
  AccountId,
  deadLogin,
  deadLoginData,
  EventId,
  type EventKind,
  noGuardrails,
  OutboxEvent,
  Project,
  ProjectAdmin,
  ProjectId,
  SocialAccount,
  WebhookDeliveryLog,
  WebhookDestinations,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpoints
} from "@herald/core"
import { OutboundGuard, type OutboundGuardOptions } from "@herald/outbound"
import { type Delivery, type Receiver, receiver, selfSigned } from "@herald/outbound/testing"
import { StorageLive, Wakeups } from "@herald/storage-postgres"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { type Context, DateTime, Duration, Effect, Either, ExecutionStrategy, Exit, Layer, Option, Redacted, Scope, TestClock } from "effect"
import {
  deliveryIdFor,
  retryDelays,
  retryJitter,
  verify,
  WebhookDestinationsLive,
  WebhookDispatcher
} from "../src/index.js"

const tls = selfSigned()
const secret = "whsec_dispatcher_test"
const t0 = DateTime.unsafeMake("2030-01-15T10:00:00.000Z")

/** receiver.test and loopback.test resolve to loopback; localhost through the system. */
const names: Record<string, ReadonlyArray<LookupAddress>> = {
  "receiver.test": [{ address: "127.0.0.1", family: 4 }],
  "loopback.test": [{ address: "127.0.0.1", family: 4 }]
}
const resolveHost = async (hostname: string): Promise<ReadonlyArray<LookupAddress>> => {
  if (hostname === "localhost") return dns.lookup(hostname, { all: true })
  const addresses = names[hostname]
  if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
  return addresses
}
const loopbackGuard: OutboundGuardOptions = { allowLoopback: true, production: false, ca: tls.cert, resolveHost }
const strictGuard: OutboundGuardOptions = { allowLoopback: false, production: false, ca: tls.cert, resolveHost }

const storage = () =>
  StorageLive.layer({
    databaseUrl: Option.none(),
    dataDir: embeddedDataDir("herald-dispatcher-"),
    credentialsKey: Redacted.make(randomBytes(32).toString("base64"))
  })

/**
 * Starts a dispatcher in a scope of its own inside the test's: closing it is stopping the sending
 * process, and the test's end stops it in any case (the next test shares the database). It
 * polls only when woken, so the tests decide when it looks at the queue (see advanceToNextDue).
 * Its sends wait `timeout` (real time) for an answer: by default long enough for a busy machine,
 * whose answers can take a few hundred milliseconds; short where a test waits for one to time out.
 */
const startDispatcher = (guard: OutboundGuardOptions = loopbackGuard, worker = `test-${randomUUID()}`, timeout: Duration.DurationInput = "10 seconds") =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    yield* Layer.buildWithScope(
      WebhookDispatcher.layer({ worker, timeout, pollInterval: "1000 days" }).pipe(
        Layer.provide(OutboundGuard.layer(guard))
      ),
      scope
    )
    return scope
  })

const newProject = Effect.gen(function*() {
  const project = new Project({
    id: ProjectId.make(randomUUID()),
    name: "Acme",
    timezone: "UTC",
    approval: "autopilot",
    signature: "",
    guardrails: noGuardrails,
    plan: "active"
  })
  yield* Effect.flatMap(ProjectAdmin, (admin) => admin.create(project))
  return project
})

const addEndpoint = (project: Project, url: string, kinds: ReadonlyArray<EventKind> = ["account.needs_reconnect"]) =>
  Effect.gen(function*() {
    const endpoint = new WebhookEndpoint({
      id: WebhookEndpointId.make(randomUUID()),
      projectId: project.id,
      url,
      kinds,
      enabled: true,
      consecutiveFailures: 0,
      lastError: null,
      createdAt: yield* DateTime.now
    })
    yield* Effect.flatMap(WebhookEndpoints, (endpoints) => endpoints.create(endpoint, Redacted.make(secret)))
    return endpoint
  })

/** Raises one account.needs_reconnect event the way the health check does: with the status change, in one transaction. */
const raise = (project: Project) =>
  Effect.gen(function*() {
    const account = new SocialAccount({
      id: AccountId.make(randomUUID()),
      projectId: project.id,
      platform: "x",
      username: `acme_${randomBytes(4).toString("hex")}`,
      route: "simulator",
      status: "active"
    })
    yield* Effect.flatMap(AccountAdmin, (admin) => admin.connect(account, { access_token: "token" }))
    const event = new OutboxEvent({
      id: EventId.make(randomUUID()),
      projectId: project.id,
      kind: "account.needs_reconnect",
      createdAt: yield* DateTime.now,
      data: deadLoginData(account, deadLogin(account, "the platform refused the token"), yield* DateTime.now)
    })
    const issue = { ...deadLogin(account, "the platform refused the token"), id: randomUUID() }
    expect(yield* Effect.flatMap(AccountConnections, (connections) => connections.markNeedsReconnect(account.id, event, issue))).toBe(true)
    return event
  })

const endpointNamed = (project: Project, id: WebhookEndpointId) =>
  Effect.flatMap(WebhookEndpoints, (endpoints) => endpoints.list(project.id)).pipe(
    Effect.map((all) => all.find((endpoint) => endpoint.id === id)!)
  )

const logOf = (project: Project, endpoint: WebhookEndpoint) =>
  Effect.flatMap(WebhookDeliveryLog, (log) => log.list(project.id, endpoint.id, { limit: 1000 })).pipe(
    Effect.orDie,
    Effect.map((attempts) => [...attempts].reverse())
  )

const realSleep = (millis: number) => Effect.promise(() => new Promise<void>((done) => setTimeout(done, millis)))

/** The queue as claimDue sees it at the TestClock's time, for enabled endpoints. */
const queueState = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const now = DateTime.formatIso(yield* DateTime.now)
  const [row] = yield* sql<{ readonly busy: number; readonly next_due: Date | null }>`
    SELECT
      count(*) FILTER (WHERE s.due_at <= ${now} OR s.lease_expires_at > ${now})::int AS busy,
      min(GREATEST(s.due_at, COALESCE(s.lease_expires_at, s.due_at))) AS next_due
    FROM webhook_sends s JOIN webhook_endpoints w ON w.id = s.endpoint_id AND w.enabled
    WHERE s.status = 'pending'`
  return row!
}).pipe(Effect.orDie)

/** Waits (real time) until nothing is due now and nothing is in flight. */
const settle = Effect.gen(function*() {
  for (let waited = 0; waited < 20_000; waited += 10) {
    if ((yield* queueState).busy === 0) return
    yield* realSleep(10)
  }
  const sql = yield* SqlClient.SqlClient
  const rows = yield* Effect.orDie(sql`SELECT status, attempts, due_at, lease_owner, lease_expires_at FROM webhook_sends`)
  return yield* Effect.dieMessage(`the dispatcher did not settle within 20 s at ${DateTime.formatIso(yield* DateTime.now)}: ${JSON.stringify(rows)}`)
})

/** Sets the TestClock and wakes the dispatcher, as its poll would at that time. */
const wakeAt = (millis: number) =>
  Effect.zipRight(TestClock.setTime(millis), Effect.flatMap(Wakeups, (wakeups) => wakeups.signal("outbox")))

/** Settles, then moves on to the next send's due time (or lease expiry); false when none is left. */
const advanceToNextDue = Effect.gen(function*() {
  yield* settle
  const { next_due } = yield* queueState
  if (next_due === null) return false
  yield* wakeAt(next_due.getTime())
  return true
})

/** Runs the schedule to its end: every send delivered or given up (or waiting on a disabled endpoint). */
const runToEnd = Effect.gen(function*() {
  while (yield* advanceToNextDue) {
    // next send
  }
})

const accepted = (server: Receiver, path: string) =>
  server.received.filter((delivery) => delivery.path === path && delivery.status === 200)

const deliveryIds = (deliveries: ReadonlyArray<Delivery>) => deliveries.map((delivery) => String(delivery.headers["x-service-delivery"]))

type Storage = Layer.Layer.Success<ReturnType<typeof storage>>

// One database for the file (opening and migrating one is most of a short test's time). Each test
// makes its own project, endpoints and receiver, and stops its dispatchers when it ends.
const fileScope = Effect.runSync(Scope.make())
let database: Context.Context<Storage>
beforeAll(async () => {
  database = await Effect.runPromise(Layer.buildWithScope(storage(), fileScope))
}, 60_000)
afterAll(() => Effect.runPromise(Scope.close(fileScope, Exit.void)))

/**
 * What a test leaves due would be sent in the next one, whose queue the helpers above read whole:
 * its endpoints are turned off when it ends, where their sends wait (as on any disabled endpoint).
 */
const turnOffEndpoints = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE webhook_endpoints SET enabled = false`).pipe(Effect.orDie)

/** A test on the file's database, with a project of its own, the TestClock at t0. */
const storageTest = <A, E>(name: string, body: () => Effect.Effect<A, E, Storage | Scope.Scope>) =>
  it.scoped(name, () =>
    Effect.gen(function*() {
      yield* Effect.addFinalizer(() => turnOffEndpoints)
      yield* TestClock.setTime(DateTime.toEpochMillis(t0))
      return yield* body()
    }).pipe(Effect.provide(database)), 60_000)

describe("WebhookDispatcher", () => {
  storageTest("during a rotation's overlap signs with the old and the new secret; after it, with the new only", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      yield* startDispatcher()
      const project = yield* newProject
      const endpoint = yield* addEndpoint(project, `${server.origin}/hook`)
      const rotated = "whsec_dispatcher_rotated"
      const overlapEnd = DateTime.add(t0, { hours: 1 })
      yield* Effect.flatMap(WebhookEndpoints, (endpoints) =>
        endpoints.rotateSecret(project.id, endpoint.id, Redacted.make(rotated), overlapEnd))

      /** What a receiver holding only `key` makes of the latest request. */
      const verdictWith = (key: string) => {
        const { headers, rawBody } = server.received.at(-1)!
        return Either.map(verify(rawBody, headers, key, { now: Number(headers["x-service-timestamp"]) * 1000 }), () => "verified")
      }

      yield* raise(project)
      yield* settle
      expect(server.received).toHaveLength(1)
      expect(String(server.received[0]!.headers["x-service-signature"])).toMatch(/^v1=[0-9a-f]{64} v1=[0-9a-f]{64}$/)
      expect(verdictWith(secret)).toEqual(Either.right("verified"))
      expect(verdictWith(rotated)).toEqual(Either.right("verified"))

      yield* TestClock.setTime(DateTime.toEpochMillis(overlapEnd))
      yield* raise(project)
      yield* settle
      expect(server.received).toHaveLength(2)
      expect(String(server.received[1]!.headers["x-service-signature"])).toMatch(/^v1=[0-9a-f]{64}$/)
      expect(verdictWith(rotated)).toEqual(Either.right("verified"))
      expect(Either.getLeft(verdictWith(secret)).pipe(Option.map((error) => error._tag))).toEqual(Option.some("BadSignature"))
    }))

  storageTest("sends each event once to each subscribed endpoint, signed, and logs the attempt", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      yield* startDispatcher()
      const project = yield* newProject
      const subscribed = yield* addEndpoint(project, `${server.origin}/hook`)
      const second = yield* addEndpoint(project, `${server.origin}/target`, ["account.needs_reconnect", "post.failed"])
      yield* addEndpoint(project, `${server.origin}/fail`, ["post.published"])
      const events = [yield* raise(project), yield* raise(project), yield* raise(project)]
      yield* settle

      expect(server.hits("/fail")).toBe(0) // not subscribed to account.needs_reconnect
      for (const [path, endpoint] of [["/hook", subscribed], ["/target", second]] as const) {
        const received = accepted(server, path)
        expect(deliveryIds(received).sort()).toEqual(events.map((event) => deliveryIdFor(event.id, endpoint.id)).sort())
      }

      const timestamp = String(DateTime.toEpochMillis(t0) / 1000)
      for (const { headers, rawBody } of server.received) {
        expect(headers["x-service-event"]).toBe("account.needs_reconnect")
        expect(headers["x-service-timestamp"]).toBe(timestamp)
        const independent = createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex")
        expect(headers["x-service-signature"]).toBe(`v1=${independent}`)
        expect(verify(rawBody, headers, secret, { now: DateTime.toDate(t0) })).toEqual(Either.right({
          event: "account.needs_reconnect",
          deliveryId: headers["x-service-delivery"],
          timestamp: Number(timestamp)
        }))
        const body = JSON.parse(rawBody.toString("utf8"))
        expect(Object.keys(body)).toEqual(["event", "delivery_id", "created_at", "project", "data"])
        expect(body.delivery_id).toBe(headers["x-service-delivery"])
        expect(body.project).toEqual({ id: project.id, name: "Acme" })
        expect(body.created_at).toBe("2030-01-15T10:00:00.000Z")
        expect(body.data.reason).toContain("the platform refused the token")
        expect(body.data).toMatchObject({ kind: "login_dead", detail: body.data.reason })
      }

      const log = yield* logOf(project, subscribed)
      expect(log.map(({ attempt, error, outcome, responsePrefix, statusCode }) => ({ attempt, statusCode, responsePrefix, error, outcome })))
        .toEqual(events.map(() => ({ attempt: 1, statusCode: 200, responsePrefix: "ok", error: null, outcome: "sent" })))
      expect(log.map((entry) => entry.deliveryId).sort()).toEqual(deliveryIds(accepted(server, "/hook")).sort())
    }))

  storageTest("a receiver that is down, then up, gets every event, each delivery id once", () =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.map(receiver(tls), (server) => server.port))
      yield* startDispatcher()
      const project = yield* newProject
      const endpoint = yield* addEndpoint(project, `https://receiver.test:${port}/hook`)
      const events = yield* Effect.forEach(Array.from({ length: 5 }), () => raise(project))
      yield* settle
      // Past the first retry of every event (1 minute + 20% at most), still refused.
      yield* wakeAt(DateTime.toEpochMillis(t0) + Duration.toMillis(retryDelays[0]!) * (1 + retryJitter))
      yield* settle

      const server = yield* receiver(tls, { port })
      yield* runToEnd
      const ids = deliveryIds(accepted(server, "/hook"))
      expect(ids.sort()).toEqual(events.map((event) => deliveryIdFor(event.id, endpoint.id)).sort())
      expect(server.received).toHaveLength(5)

      const log = yield* logOf(project, endpoint)
      expect(log.filter((entry) => entry.outcome === "retry")).toHaveLength(10)
      for (const entry of log.filter((entry) => entry.outcome === "retry")) {
        expect(entry.statusCode).toBeNull()
        expect(entry.error).toContain("ECONNREFUSED")
      }
      expect(log.filter((entry) => entry.outcome === "sent").map((entry) => entry.attempt)).toEqual([3, 3, 3, 3, 3])
      expect((yield* endpointNamed(project, endpoint.id)).consecutiveFailures).toBe(0)
    }))

  storageTest("500s, timeouts and a redirect are retried 5 times on the schedule, never followed, then given up", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      yield* startDispatcher(loopbackGuard, undefined, "300 millis")
      const project = yield* newProject
      const endpoints = {
        "/fail": yield* addEndpoint(project, `${server.origin}/fail`),
        "/hang": yield* addEndpoint(project, `${server.origin}/hang`),
        "/redirect": yield* addEndpoint(project, `${server.origin}/redirect`)
      }
      const event = yield* raise(project)
      yield* runToEnd

      expect(server.hits("/target")).toBe(0)
      const reasons = {
        "/fail": "the endpoint answered 500",
        "/hang": `receiver.test:${server.port} did not answer within 300 ms`,
        "/redirect": "the endpoint answered 302, a redirect, and redirects are not followed"
      }
      for (const [path, endpoint] of Object.entries(endpoints) as Array<[keyof typeof reasons, WebhookEndpoint]>) {
        const requests = server.received.filter((delivery) => delivery.path === path)
        expect(requests).toHaveLength(6)
        expect(new Set(deliveryIds(requests))).toEqual(new Set([deliveryIdFor(event.id, endpoint.id)]))

        const log = yield* logOf(project, endpoint)
        expect(log.map((entry) => entry.attempt)).toEqual([1, 2, 3, 4, 5, 6])
        expect(log.map((entry) => entry.outcome)).toEqual(["retry", "retry", "retry", "retry", "retry", "given_up"])
        expect(new Set(log.map((entry) => entry.error))).toEqual(new Set([reasons[path]]))
        // Each retry waited its delay within the jitter, and was signed afresh at its own time.
        retryDelays.forEach((delay, index) => {
          const waited = DateTime.distance(log[index]!.at, log[index + 1]!.at)
          expect(waited).toBeGreaterThanOrEqual(Duration.toMillis(delay) * (1 - retryJitter))
          expect(waited).toBeLessThanOrEqual(Duration.toMillis(delay) * (1 + retryJitter))
        })
        expect(requests.map((request) => Number(request.headers["x-service-timestamp"])))
          .toEqual(log.map((entry) => Math.floor(DateTime.toEpochMillis(entry.at) / 1000)))

        const shown = yield* endpointNamed(project, endpoint.id)
        expect(shown.lastError).toBe(`gave up after 6 attempts: ${reasons[path]}`)
        expect(shown.consecutiveFailures).toBe(1)
        expect(shown.enabled).toBe(true)
      }
      const total = DateTime.distance(t0, DateTime.unsafeMake(yield* TestClock.currentTimeMillis))
      expect(total).toBeGreaterThan(Duration.toMillis("2 hours"))
      expect(total).toBeLessThan(Duration.toMillis(Duration.sum(Duration.hours(3), Duration.minutes(2))))
    }))

  storageTest("after 10 given-up events in a row the endpoint is off until turned back on; a given-up event can be resent", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      server.flaky.mode = "fail"
      yield* startDispatcher()
      const project = yield* newProject
      const endpoint = yield* addEndpoint(project, `${server.origin}/flaky`)
      const givenUp = yield* Effect.forEach(Array.from({ length: 10 }), () => raise(project))
      yield* runToEnd

      const off = yield* endpointNamed(project, endpoint.id)
      expect(off.enabled).toBe(false)
      expect(off.consecutiveFailures).toBe(10)
      expect(off.lastError).toBe("gave up after 6 attempts: the endpoint answered 503")
      expect(server.hits("/flaky")).toBe(60)

      // While off, nothing goes out: an event raised now is not queued for it.
      server.flaky.mode = "ok"
      yield* raise(project)
      yield* TestClock.adjust("1 hour")
      yield* settle
      expect(server.hits("/flaky")).toBe(60)

      yield* Effect.flatMap(WebhookEndpoints, (endpoints) => endpoints.setEnabled(project.id, endpoint.id, true))
      const on = yield* endpointNamed(project, endpoint.id)
      expect([on.enabled, on.consecutiveFailures]).toEqual([true, 0])
      const later = yield* raise(project)
      yield* settle
      expect(deliveryIds(accepted(server, "/flaky"))).toEqual([deliveryIdFor(later.id, endpoint.id)])

      // By hand: the first given-up event goes again, with the delivery id its six attempts carried.
      const log = yield* WebhookDeliveryLog
      yield* log.resend(project.id, endpoint.id, givenUp[0]!.id, yield* DateTime.now)
      yield* settle
      const resentId = deliveryIdFor(givenUp[0]!.id, endpoint.id)
      expect(deliveryIds(accepted(server, "/flaky"))).toEqual([deliveryIdFor(later.id, endpoint.id), resentId])
      expect(deliveryIds(server.received).filter((id) => id === resentId)).toHaveLength(7)
      const history = yield* log.list(project.id, endpoint.id, { limit: 10, eventId: givenUp[0]!.id })
      expect(history.map((entry) => [entry.attempt, entry.outcome])).toEqual([
        [1, "sent"], [6, "given_up"], [5, "retry"], [4, "retry"], [3, "retry"], [2, "retry"], [1, "retry"]
      ])
      expect((yield* Effect.flip(log.resend(project.id, endpoint.id, givenUp[0]!.id, yield* DateTime.now)))._tag)
        .toBe("WebhookSendNotGivenUp")
    }))

  storageTest("a restart of the sending process loses nothing, mid-retry or mid-send", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      server.flaky.mode = "fail"
      const first = yield* startDispatcher()
      const project = yield* newProject
      const endpoint = yield* addEndpoint(project, `${server.origin}/flaky`)
      const retried = yield* Effect.forEach(Array.from({ length: 3 }), () => raise(project))
      yield* settle
      expect(server.hits("/flaky")).toBe(3)

      // Mid-send: the receiver holds the next attempt when the process stops.
      server.flaky.mode = "hang"
      const hung = yield* raise(project)
      for (let waited = 0; server.hits("/flaky") < 4 && waited < 5_000; waited += 10) yield* realSleep(10)
      expect(server.hits("/flaky")).toBe(4)
      yield* Scope.close(first, Exit.void)

      server.flaky.mode = "ok"
      yield* startDispatcher()
      // The cut-short send is taken again once its lease lapses; the retries fall due on schedule.
      yield* wakeAt((yield* TestClock.currentTimeMillis) + 60_001)
      yield* runToEnd
      const ids = deliveryIds(accepted(server, "/flaky"))
      expect(ids.sort()).toEqual([...retried, hung].map((event) => deliveryIdFor(event.id, endpoint.id)).sort())
      // The first attempts carried the same ids the deliveries did.
      expect(new Set(deliveryIds(server.received))).toEqual(new Set(ids))
    }))

  storageTest("the guard refuses private destinations at send time, naming the address", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      yield* startDispatcher(strictGuard)
      const project = yield* newProject
      const urls = [
        `https://localhost:${server.port}/hook`,
        `https://127.0.0.1:${server.port}/hook`,
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data/",
        `https://[::1]:${server.port}/hook`,
        `https://[::ffff:127.0.0.1]:${server.port}/hook`,
        `https://loopback.test:${server.port}/hook`
      ]
      const endpoints = yield* Effect.forEach(urls, (url) => addEndpoint(project, url))
      yield* raise(project)
      yield* settle
      const errors = yield* Effect.forEach(endpoints, (endpoint) => Effect.map(logOf(project, endpoint), (log) => log[0]!.error))
      expect(errors).toEqual([
        expect.stringMatching(/^outbound request refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/),
        "outbound request refused: 127.0.0.1 is a loopback address",
        "outbound request refused: 10.0.0.1 is a private address",
        "outbound request refused: 169.254.169.254 is the cloud metadata address",
        "outbound request refused: ::1 is a loopback address",
        "outbound request refused: ::ffff:7f00:1 is an IPv4-mapped address",
        "outbound request refused: loopback.test resolves to 127.0.0.1, a loopback address"
      ])
      expect(server.received).toEqual([])
    }))

  it.effect("refuses to start with the loopback allowance in production mode", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(
        WebhookDispatcher.layer().pipe(Layer.provide(OutboundGuard.layer({ ...loopbackGuard, production: true })))
      ))
      expect(exit).toMatchObject(Exit.fail({ _tag: "LoopbackAllowedInProduction" }))
    }).pipe(Effect.scoped, Effect.provide(database)), 60_000)
})

describe("WebhookDestinationsLive", () => {
  const check = (url: string) =>
    Effect.flatMap(WebhookDestinations, (destinations) => destinations.check(url)).pipe(
      Effect.either,
      Effect.map(Either.match({ onLeft: (refused) => refused.message, onRight: () => "accepted" }))
    )

  it.live("refuses private destinations when an endpoint is created", () =>
    Effect.gen(function*() {
      const outcomes = yield* Effect.forEach([
        "https://localhost/hook",
        "https://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://169.254.169.254/hook",
        "https://[::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://loopback.test/hook",
        "http://receiver.test/hook",
        "https://nowhere.test/hook",
        "https://93.184.215.14/hook"
      ], check)
      expect(outcomes).toEqual([
        expect.stringMatching(/^webhook URL refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/),
        "webhook URL refused: 127.0.0.1 is a loopback address",
        "webhook URL refused: 10.0.0.1 is a private address",
        "webhook URL refused: 169.254.169.254 is the cloud metadata address",
        "webhook URL refused: ::1 is a loopback address",
        "webhook URL refused: ::ffff:7f00:1 is an IPv4-mapped address",
        "webhook URL refused: loopback.test resolves to 127.0.0.1, a loopback address",
        "webhook URL refused: receiver.test is reached over http; only https is allowed",
        // unresolvable now: judged again at every connection
        "accepted",
        "accepted"
      ])
    }).pipe(Effect.provide(WebhookDestinationsLive.pipe(Layer.provide(OutboundGuard.layer(strictGuard))))))
})
