import { NodeHttpServer } from "@effect/platform-node"
import { HttpServer } from "@effect/platform"
import { AccountAdmin, AccountId, ProjectId, SocialAccount } from "@herald/core"
import { HttpApiLive, serveApi } from "@herald/http-api"
import { type RunningSimulator, startSimulator, triggers, triggerUsernames } from "@herald/publishers"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { Duration, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bootstrapDemo, type DemoCredentials } from "../../src/Bootstrap.js"
import { engineLayer, httpApiConfig } from "../../src/Engine.js"
import { dispatchDueOnce } from "../../src/workers/index.js"
import { json } from "../TestHerald.js"
import { credentialsKey, testOptions } from "./fixtures.js"

/**
 * The REST API and the engine over the embedded store, with the simulator answering at once (a
 * #sim-timeout answer held past the dispatcher's time limit) and dispatch driven by the test.
 */
const dataDir = embeddedDataDir("herald-receipts-")
let simulator: RunningSimulator
let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof stackFor>>, unknown>
let origin: string
let credentials: DemoCredentials

const stackFor = (simulatorUrl: string) =>
  serveApi.pipe(
    Layer.provide(HttpApiLive),
    Layer.provide(httpApiConfig("http://herald.test/", Redacted.make("test-approval-secret"))),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(engineLayer({ databaseUrl: Option.none(), dataDir, credentialsKey, simulatorUrl: Option.some(simulatorUrl) }))
  )

beforeAll(async () => {
  simulator = await startSimulator({ latency: { minMs: 0, maxMs: 0 }, timeoutHoldMs: 6_000 })
  runtime = ManagedRuntime.make(stackFor(simulator.url))
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  origin = `http://127.0.0.1:${address.port}`
  credentials = Option.getOrThrow(await runtime.runPromise(bootstrapDemo))
}, 60_000)

afterAll(async () => {
  await runtime.dispose()
  await simulator.close()
  Fs.rmSync(dataDir, { recursive: true, force: true })
})

const call = (path: string, body?: unknown) =>
  fetch(`${origin}/api/v1${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${credentials.human_key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const connect = (username: string) =>
  runtime.runPromise(Effect.flatMap(AccountAdmin, (admin) =>
    admin.connect(
      new SocialAccount({
        id: AccountId.make(randomUUID()),
        projectId: ProjectId.make(credentials.project_id),
        platform: "x",
        username,
        route: "simulator",
        status: "active"
      }),
      {}
    )))

const post = async (caption: string, account: string): Promise<string> => {
  const created = await call("/posts", { caption, social_accounts: [account] })
  expect(created.status, caption).toBe(201)
  return (await json(created)).id
}

const receiptRow = async (postId: string) => {
  const receipt = await json(await call(`/post-results?post_id=${postId}`))
  expect(receipt.data).toHaveLength(1)
  return receipt.data[0]
}

describe("delivery-error categories on receipts (GET /post-results)", () => {
  it("each simulator failure shows its category in error_category and the coarser one in error.category", async () => {
    const expired = `${triggerUsernames.expiredPrefix}amy`
    const readOnly = `${triggerUsernames.readOnlyPrefix}bob`
    for (const username of [expired, triggerUsernames.restricted, readOnly]) await connect(username)
    // [caption, account, status after one pass, error_category, error.category, error.code]
    const answered = [
      ["hello", `x:${expired}`, "failed", "auth_expired", "auth_expired", "token_expired"],
      ["hello", `x:${triggerUsernames.restricted}`, "failed", "permission_missing", "platform_error", "account_restricted"],
      ["hello", `x:${readOnly}`, "failed", "permission_missing", "platform_error", "missing_permission"],
      [`hello ${triggers.reject}`, "x:herald_demo", "failed", "content_rejected", "content_rejected", "content_rejected"],
      [`hello ${triggers.rateLimit}`, "threads:herald_demo", "queued", "rate_limited", "rate_limited", "rate_limited"],
      [`hello ${triggers.serverError}`, "linkedin:herald_demo", "queued", "transient", "platform_error", "platform_unavailable"]
    ] as const
    const timedOut = [`hello ${triggers.timeout}`, "bluesky:herald_demo", "unknown", "outcome_unknown", "unknown", "outcome_unknown"] as const
    const pass = (publishTimeout: Duration.Duration) =>
      runtime.runPromise(dispatchDueOnce(testOptions({ publishTimeout, outcomeLinger: Duration.zero })))
    const posts: Array<string> = []
    for (const [caption, account] of answered) posts.push(await post(caption, account))
    const delivered = await post("hello, world", "x:herald_demo")
    // The answered calls in a pass whose time limit a busy machine's answer still beats; the held
    // call in a pass of its own, whose short limit only it reaches (the others are not due again).
    await pass(Duration.seconds(3))
    posts.push(await post(timedOut[0], timedOut[1]))
    await pass(Duration.millis(300))
    const cases = [...answered, timedOut]

    for (const [index, [caption, account, status, errorCategory, category, code]] of cases.entries()) {
      const row = await receiptRow(posts[index]!)
      const what = `${caption} to ${account}`
      expect(row, what).toMatchObject({ status, error_category: errorCategory, error: { category, code } })
      expect(row.attempts, what).toMatchObject([{ error: { category, code } }])
    }
    expect(await receiptRow(delivered)).toMatchObject({ status: "success", error: null, error_category: null })
  }, 60_000)
})
