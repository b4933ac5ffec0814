import {
  AccountStore,
  checkConnectionsNow,
  ConnectionCheckRuns,
  createPost,
  defaultConnectionCheckPolicy,
  listConnectionIssues,
  type PostId,
  type PostRecord,
  type ProjectId,
  retryAuthFailures,
  setAccountStatus
} from "@herald/core"
import { SimulatorServer } from "@herald/publishers"
import { DateTime, Duration, Effect, Layer, ManagedRuntime, Schedule } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { workers } from "../../src/workers/index.js"
import { eventsOf, loadRecord, seed, testOptions, world } from "./fixtures.js"

const simulatorOptions = { latency: { minMs: 5, maxMs: 20 } }

// The checker at its default throttle (6 h, hourly inside the 7-day window), looking every 100 ms.
const stack = Layer.mergeAll(
  workers(testOptions({ worker: "health-dispatcher" }), {}, { worker: "health-checker", pollInterval: Duration.millis(100) }),
  ConnectionCheckRuns.layer("health-now", defaultConnectionCheckPolicy)
).pipe(Layer.provideMerge(world(simulatorOptions)))
type Services = Layer.Layer.Success<typeof stack>

let runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
beforeAll(async () => {
  runtime = ManagedRuntime.make(stack)
  await runtime.runtime()
}, 60_000)
afterAll(() => runtime.dispose())

const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)

const unique = (prefix: string) => `${prefix}_${randomBytes(4).toString("hex")}`

/** Sets an account's login on the simulator through its HTTP API (POST /_sim/accounts/...). */
const setLogin = (platform: string, username: string, login: Record<string, unknown>) =>
  Effect.gen(function*() {
    const { url } = yield* SimulatorServer
    const reply = yield* Effect.promise(() =>
      fetch(`${url}/_sim/accounts/${platform}/${username}`, { method: "POST", body: JSON.stringify(login), headers: { "content-type": "application/json" } })
    )
    expect(reply.status).toBe(200)
  })

const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, what: string) =>
  effect.pipe(
    Effect.retry(Schedule.spaced("50 millis")),
    Effect.timeoutFail({ duration: "15 seconds", onTimeout: () => new Error(`timed out waiting for ${what}`) })
  )

const settled = (projectId: ProjectId, postId: PostId, statuses: ReadonlyArray<string>) =>
  eventually(
    loadRecord(projectId, postId).pipe(Effect.filterOrFail((record: PostRecord) => statuses.includes(record.post.status), () => "not yet")),
    `post ${postId} to be ${statuses.join(" or ")}`
  )

describe("connection health (embedded database, simulator, checker and dispatcher running)", () => {
  it("an expiring token opens one warning before it fails; posts still go out meanwhile", () =>
    run(Effect.gen(function*() {
      const username = unique("exp")
      const expiresAt = DateTime.add(yield* DateTime.now, { days: 2 })
      yield* setLogin("bluesky", username, { expires_at: DateTime.formatIso(expiresAt) })
      const { accounts, human } = yield* seed({ accounts: [["bluesky", username]] })
      // The worker checks a new account at once, without being asked.
      const issues = yield* eventually(
        listConnectionIssues(human).pipe(Effect.filterOrFail((found) => found.length > 0, () => "none yet")),
        "the checker's warning"
      )
      expect(issues).toEqual([expect.objectContaining({
        kind: "token_expiring",
        severity: "warning",
        account: { id: accounts[0]!.id, platform: "bluesky", username, ref: `bluesky:${username}` },
        action: expect.objectContaining({ type: "reconnect" }),
        resolved_at: null
      })])
      expect(issues[0]!.detail).toContain(DateTime.formatIso(expiresAt))
      expect((yield* Effect.flatMap(AccountStore, (store) => store.list(human.projectId)))[0]!.status).toBe("active")
      const { record } = yield* createPost(human, { caption: "still fine", social_accounts: [accounts[0]!.id] })
      expect((yield* settled(human.projectId, record.post.id, ["posted", "failed"])).post.status).toBe("posted")
    })), 30_000)

  it("a revoked token: one issue and one event over several checks, the account marked, new deliveries fail auth_expired at once; reconnect closes it and retry-all publishes", () =>
    run(Effect.gen(function*() {
      const username = unique("rev")
      const { accounts, human, project } = yield* seed({ accounts: [["x", username]] })
      const account = accounts[0]!
      yield* setLogin("x", username, { token: "revoked" })
      const reports = [yield* checkConnectionsNow(human), yield* checkConnectionsNow(human), yield* checkConnectionsNow(human)]
      for (const report of reports) {
        expect(report.summary.issues).toEqual({ login_dead: 1 })
        expect(report.data.map((issue) => issue.kind)).toEqual(["login_dead"])
      }
      // One incident: the same row each time, seen again by every check.
      expect(new Set(reports.map((report) => report.data[0]!.id)).size).toBe(1)
      expect(reports[0]!.data[0]).toMatchObject({ severity: "critical", account: { id: account.id }, action: { type: "reconnect" } })
      expect((yield* Effect.flatMap(AccountStore, (store) => store.list(project.id)))[0]!.status).toBe("needs_reconnect")
      const events = yield* eventsOf(project.id)
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({
        kind: "account.needs_reconnect",
        data: {
          account: { id: account.id, platform: "x", username, status: "needs_reconnect" },
          kind: "login_dead",
          since: expect.any(String)
        }
      })
      expect((events[0]!.data as { detail: string }).detail).toContain("revoked")

      // Dispatch fails fast: no platform call, no retries spent.
      const { record } = yield* createPost(human, { caption: "while revoked", social_accounts: [account.id] })
      const failed = yield* settled(project.id, record.post.id, ["failed"])
      expect(failed.deliveries[0]!.error).toMatchObject({ category: "auth_expired", code: "account_needs_reconnect" })
      expect(failed.deliveries[0]!.attempts).toHaveLength(1)
      expect(yield* eventsOf(project.id).pipe(Effect.map((all) => all.filter((event) => event.kind === "account.needs_reconnect")))).toHaveLength(1)

      // Reconnect: the login works again and the account is set active.
      yield* setLogin("x", username, { token: "valid" })
      yield* setAccountStatus(project.id, account.id, "active")
      expect(yield* listConnectionIssues(human)).toEqual([])
      expect(yield* retryAuthFailures(project.id, account.id)).toEqual({ queued: 1 })
      expect((yield* settled(project.id, record.post.id, ["posted"])).deliveries[0]!.url).toMatch(/^https:\/\/x\.com\//)
      // Nothing was left to queue again.
      expect(yield* retryAuthFailures(project.id, account.id)).toEqual({ queued: 0 })
    })), 30_000)

  it("POST bypasses the throttle, and concurrent POSTs for one project join one check", () =>
    run(Effect.gen(function*() {
      const username = unique("perm")
      const { accounts, human } = yield* seed({ accounts: [["threads", username]] })
      const first = yield* checkConnectionsNow(human)
      expect(first.summary).toEqual({ checked: 1, healthy: 1, issues: {} })
      yield* setLogin("threads", username, { dropped_permissions: ["publish"] })
      // The worker keeps polling, but the account is not due for 6 hours.
      yield* Effect.sleep("300 millis")
      expect(yield* listConnectionIssues(human)).toEqual([])
      const [a, b] = yield* Effect.all([checkConnectionsNow(human), checkConnectionsNow(human)], { concurrency: 2 })
      // Had the second run its own check, the first one's lease would have left it nothing to probe.
      expect(b).toEqual(a)
      expect(a.summary).toEqual({ checked: 1, healthy: 0, issues: { permission_missing: 1 } })
      expect(a.data[0]).toMatchObject({ kind: "permission_missing", account: { id: accounts[0]!.id }, action: { type: "grant_permissions" } })
      expect(a.data[0]!.detail).toContain("publish")
      // Granted again: the next check closes it.
      yield* setLogin("threads", username, {})
      expect((yield* checkConnectionsNow(human)).data).toEqual([])
    })), 30_000)
})
