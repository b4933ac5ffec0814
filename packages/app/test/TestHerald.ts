import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { HttpServer } from "@effect/platform"
import { defaultConnectionCheckPolicy } from "@herald/core"
import { Kit, startSimulator } from "@herald/publishers"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { type Duration, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, describe } from "vitest"
import { type DemoCredentials, readCredentials } from "../src/Bootstrap.js"
import type { HeraldConfig } from "../src/Config.js"
import { loadSecrets } from "../src/Secrets.js"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"
import { serverLayer } from "../src/Server.js"
import { defaultMetricsSchedule, defaultMetricsSyncOptions, defaultPublishingDispatcherOptions } from "../src/workers/index.js"

/** A reply body, loosely typed for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = async (reply: Response): Promise<any> => reply.json()

export const tempDataDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-test-"))

/**
 * The reference server in this process on 127.0.0.1 (a free port) over the embedded database in
 * a fresh data directory holding a copy of the run's initialised database (or the PostgreSQL
 * database `databaseUrl` names, which must be empty), after its first start (demo project, keys,
 * credentials.json). It publishes to a simulator it starts itself, or to the one `simulatorUrl`
 * names (the test's own, whose calls it reads).
 */
export const startHerald = async (
  options: {
    readonly workers?: boolean
    readonly databaseUrl?: string
    readonly simulatorUrl?: string
    /** Direct routes in place of the build's (a test's own, pointed at its fakes, which the guard then reaches on loopback). */
    readonly directRoutes?: ReadonlyArray<Kit.DirectRoute>
    readonly metrics?: Pick<HeraldConfig, "metricsSchedule" | "metricsPollInterval">
    /** Each direct-route call's deadline by kind (a fake that never answers a test's call). */
    readonly callDeadlines?: Kit.Deadlines
    /** Lets the guard reach the test's own http loopback servers (implied by directRoutes). */
    readonly outboundAllowLoopback?: boolean
    /** Provided to the server: a logger or tracer of the test's own. */
    readonly observability?: Layer.Layer<never>
    /** How long the server reports not ready once closing, before it closes. */
    readonly drainDelay?: Duration.Duration
    /** The first retry's backoff in place of 15 s (a test that waits for a transient failure's retry). */
    readonly retryBackoff?: Duration.Duration
    /** The first look-up of an unknown outcome in place of 5 s after it (a test that waits for a lost answer's reconcile). */
    readonly recheckMin?: Duration.Duration
    /** Between the publishing dispatcher's polls in place of a second (a test that waits for a retry or a recheck due sooner). */
    readonly dispatchPollInterval?: Duration.Duration
    /** Between the approval notifier's passes in place of 5 s (a test that waits for a held post's messages). */
    readonly approvalPollInterval?: Duration.Duration
    /** How long the simulator it starts takes to answer, in place of 120 to 600 ms (a test whose connection checks probe the demo's accounts). */
    readonly simulatorLatency?: { readonly minMs: number; readonly maxMs: number }
    /** The demo human key's requests a minute in place of 60 (a test that polls its receipts often). */
    readonly humanKeyRateLimit?: number
  } = {}
) => {
  const simulator = options.simulatorLatency === undefined ? undefined : await startSimulator({ latency: options.simulatorLatency })
  const dataDir = options.databaseUrl === undefined ? embeddedDataDir("herald-test-") : tempDataDir()
  const config: HeraldConfig = {
    env: "development",
    host: "127.0.0.1",
    port: 0,
    publicUrl: Option.none(),
    dataDir,
    databaseUrl: Option.map(Option.fromNullable(options.databaseUrl), Redacted.make),
    credentialsKey: Option.none(),
    approvalSecret: Option.none(),
    simulatorUrl: Option.fromNullable(options.simulatorUrl ?? simulator?.url),
    outboundAllowLoopback: options.outboundAllowLoopback ?? options.directRoutes !== undefined,
    workers: options.workers ?? true,
    deliveriesInFlight: defaultPublishingDispatcherOptions().concurrency,
    deliveryTimeout: defaultPublishingDispatcherOptions().publishTimeout,
    callDeadlines: options.callDeadlines ?? Kit.deadlines,
    connectionChecks: {
      every: defaultConnectionCheckPolicy.every,
      expiringEvery: defaultConnectionCheckPolicy.expiringEvery,
      warningWindow: defaultConnectionCheckPolicy.warningWindow
    },
    metricsSchedule: defaultMetricsSchedule,
    metricsPollInterval: defaultMetricsSyncOptions().pollInterval,
    ...options.metrics
  }
  const secrets = await Effect.runPromise(loadSecrets(config))
  const runtime = ManagedRuntime.make(
    serverLayer(config, secrets, {
      ...(options.directRoutes === undefined ? {} : { directRoutes: options.directRoutes }),
      ...(options.drainDelay === undefined ? {} : { drainDelay: options.drainDelay }),
      retry: {
        ...(options.retryBackoff === undefined ? {} : { backoffBase: options.retryBackoff }),
        ...(options.recheckMin === undefined ? {} : { recheckMin: options.recheckMin })
      },
      ...(options.dispatchPollInterval === undefined ? {} : { dispatchPollInterval: options.dispatchPollInterval }),
      ...(options.approvalPollInterval === undefined ? {} : { approvalPollInterval: options.approvalPollInterval })
    }).pipe(Layer.provide(options.observability ?? Layer.empty))
  )
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const origin = `http://127.0.0.1:${address.port}`
  const credentials = Option.getOrThrow(readCredentials(dataDir)) as DemoCredentials

  /** fetch with a bearer token (or none) and an optional JSON body. */
  const call = (path: string, init: RequestInit & { readonly token?: string | null; readonly json?: unknown } = {}) => {
    const { json, token, ...rest } = init
    const headers = new Headers(rest.headers)
    if (token !== null && token !== undefined) headers.set("authorization", `Bearer ${token}`)
    if (json !== undefined) headers.set("content-type", "application/json")
    return fetch(`${origin}${path}`, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) })
  }

  if (options.humanKeyRateLimit !== undefined) {
    const keys = `/admin/v1/projects/${credentials.project_id}/keys`
    const listed = await json(await call(keys, { token: credentials.admin_token }))
    const human = listed.data.find((key: { name: string }) => key.name === "demo human")
    const updated = await call(`${keys}/${human?.id}`, { method: "PATCH", token: credentials.admin_token, json: { rate_limit_per_minute: options.humanKeyRateLimit } })
    if (updated.status !== 200) throw new Error(`PATCH of the demo human key answered ${updated.status}: ${await updated.text()}`)
  }

  return {
    origin,
    dataDir,
    credentials,
    secrets,
    call,
    close: async () => {
      await runtime.dispose()
      await simulator?.close()
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
export type TestHerald = Awaited<ReturnType<typeof startHerald>>

/**
 * The suite once on the embedded database and once in a throwaway PostgreSQL schema (skipped,
 * saying so, without DATABASE_URL); `start` starts its server (without workers).
 */
export const onEachDatabase = (name: string, suite: (start: () => Promise<TestHerald>) => void) => {
  describe(`${name} on the embedded database`, () => {
    suite(() => startHerald({ workers: false }))
  })
  describe.skipIf(databaseUrl === "")(`${name} on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)`, () => {
    let schema: Awaited<ReturnType<typeof throwawaySchema>> | undefined
    // Registered first, so it runs after the suite's own afterAll (which closes the server).
    afterAll(() => schema?.drop())
    suite(async () => {
      schema = await throwawaySchema("herald_test")
      return startHerald({ workers: false, databaseUrl: schema.url })
    })
  })
}

/** The post's receipt once `until` holds of it (read every 200 ms, 20 s at most), else the last one read. */
export const receiptWhen = async (herald: TestHerald, postId: string, until: (receipt: { post_status: string }) => boolean) => {
  const read = async () => json(await herald.call(`/api/v1/post-results?post_id=${postId}`, { token: herald.credentials.human_key }))
  let receipt = await read()
  for (let tries = 0; !until(receipt) && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    receipt = await read()
  }
  return receipt
}

/** Creates a post with the human key for `accounts` and waits for its outcome: the receipt. */
export const publishAndWait = async (herald: TestHerald, caption: string, accounts: ReadonlyArray<string>) => {
  const created = await herald.call("/api/v1/posts", { method: "POST", token: herald.credentials.human_key, json: { caption, social_accounts: accounts } })
  if (created.status !== 201) throw new Error(`POST /posts answered ${created.status}: ${await created.text()}`)
  const post = await json(created)
  return receiptWhen(herald, post.id, (receipt) => ["posted", "failed", "partially_failed"].includes(receipt.post_status))
}
