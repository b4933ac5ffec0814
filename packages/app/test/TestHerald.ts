import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { HttpServer } from "@effect/platform"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { Effect, ManagedRuntime, Option } from "effect"
import { type DemoCredentials, readCredentials } from "../src/Bootstrap.js"
import type { HeraldConfig } from "../src/Config.js"
import { loadSecrets } from "../src/Secrets.js"
import { serverLayer } from "../src/Server.js"
import { defaultDispatcherOptions } from "../src/workers/index.js"

/** A reply body, loosely typed for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = async (reply: Response): Promise<any> => reply.json()

export const tempDataDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-test-"))

/**
 * The reference server in this process on 127.0.0.1 (a free port) over the embedded database in
 * a fresh data directory (a copy of the run's initialised database), after its first start (demo
 * project, keys, credentials.json).
 */
export const startHerald = async (options: { readonly workers?: boolean } = {}) => {
  const dataDir = embeddedDataDir("herald-test-")
  const config: HeraldConfig = {
    env: "development",
    host: "127.0.0.1",
    port: 0,
    publicUrl: Option.none(),
    dataDir,
    databaseUrl: Option.none(),
    credentialsKey: Option.none(),
    approvalSecret: Option.none(),
    simulatorUrl: Option.none(),
    outboundAllowLoopback: false,
    workers: options.workers ?? true,
    deliveriesInFlight: defaultDispatcherOptions().concurrency
  }
  const secrets = await Effect.runPromise(loadSecrets(config))
  const runtime = ManagedRuntime.make(serverLayer(config, secrets))
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

  return {
    origin,
    dataDir,
    credentials,
    call,
    close: async () => {
      await runtime.dispose()
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
export type TestHerald = Awaited<ReturnType<typeof startHerald>>
