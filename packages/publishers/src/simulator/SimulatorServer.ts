import { isPlatform } from "@herald/core"
import { Context, DateTime, Effect, Either, Layer, Schema } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { type Answer, SimulatorNetwork, type SimulatorOptions } from "./SimulatorNetwork.js"
import { PublishBody, SimLoginBody } from "./SimulatorWire.js"

export interface SimulatorServerOptions extends SimulatorOptions {
  /** Default 127.0.0.1. */
  readonly host?: string
  /** Default 0: a free port. */
  readonly port?: number
}

/** A simulator listening on loopback. */
export interface RunningSimulator {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string
  readonly network: SimulatorNetwork
  readonly close: () => Promise<void>
}

const decodeBody = Schema.decodeUnknownEither(Schema.parseJson(PublishBody))
const decodeLogin = Schema.decodeUnknownEither(Schema.parseJson(SimLoginBody))

const notFound: Answer = { status: 404, body: { error: { code: "not_found", message: "no such route" } } }

const readBody = (request: Http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const route = async (network: SimulatorNetwork, request: Http.IncomingMessage): Promise<Answer> => {
  const url = new URL(request.url ?? "/", "http://simulator")
  const parts = url.pathname.split("/").filter((part) => part !== "").map(decodeURIComponent)
  const now = Date.now()
  if (request.method === "GET" && url.pathname === "/health") {
    return { status: 200, body: { status: "ok", posts: network.size } }
  }
  if (request.method === "GET" && url.pathname === "/_sim/publishes") {
    return { status: 200, body: { publishes: network.publishes() } }
  }
  if (request.method === "POST" && parts[0] === "_sim" && parts[1] === "accounts" && parts.length === 4 && isPlatform(parts[2]!)) {
    const body = decodeLogin(await readBody(request))
    if (Either.isLeft(body)) return { status: 400, body: { error: { code: "invalid_request", message: body.left.message } } }
    const { dropped_permissions, expires_at, token } = body.right
    return network.setLogin(parts[2]!, parts[3]!, {
      token,
      expiresAt: expires_at === null ? null : DateTime.formatIso(expires_at),
      droppedPermissions: dropped_permissions
    })
  }
  const [version, platform, collection, id, leaf] = parts
  if (version !== "v1" || platform === undefined || !isPlatform(platform)) return notFound
  if (collection === "posts" && id === undefined) {
    if (request.method === "POST") {
      const body = decodeBody(await readBody(request))
      if (Either.isLeft(body)) {
        return { status: 400, body: { error: { code: "invalid_request", message: body.left.message } } }
      }
      if (body.right.account.platform !== platform) {
        return { status: 400, body: { error: { code: "invalid_request", message: `account is on ${body.right.account.platform}, not ${platform}` } } }
      }
      return network.publish(body.right, now)
    }
    if (request.method === "GET") {
      return network.find(platform, url.searchParams.get("username") ?? "", url.searchParams.get("marker") ?? "")
    }
  }
  if (collection === "posts" && id !== undefined) {
    if (request.method === "DELETE" && leaf === undefined) return network.takedown(platform, id, now)
    if (request.method === "GET" && leaf === "metrics") return network.metrics(platform, id, now)
  }
  if (collection === "accounts" && id !== undefined && request.method === "GET") return network.probe(platform, id, now)
  if (collection === "users" && id !== undefined && request.method === "GET") return network.user(platform, id)
  return notFound
}

/**
 * Starts the simulated networks as a node:http server (127.0.0.1 on a free port by default).
 * Each answer waits the configured latency; a #sim-timeout answer waits far longer.
 */
export const startSimulator = (options: SimulatorServerOptions = {}): Promise<RunningSimulator> => {
  const network = new SimulatorNetwork(options)
  const latency = options.latency ?? { minMs: 120, maxMs: 600 }
  const timers = new Set<NodeJS.Timeout>()
  const server = Http.createServer((request, response) => {
    route(network, request).then(
      (answer) => {
        const write = () => {
          const headers = { ...answer.headers, ...(answer.body === null ? {} : { "content-type": "application/json" }) }
          response.writeHead(answer.status, headers)
          response.end(answer.body === null ? undefined : JSON.stringify(answer.body))
        }
        const wait = (answer.holdMs ?? 0) + latency.minMs + Math.random() * (latency.maxMs - latency.minMs)
        if (wait <= 0) return write()
        const timer = setTimeout(() => {
          timers.delete(timer)
          if (!response.destroyed) write()
        }, wait)
        timers.add(timer)
      },
      (cause: unknown) => {
        response.writeHead(500, { "content-type": "application/json" })
        response.end(JSON.stringify({ error: { code: "internal", message: String(cause) } }))
      }
    )
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      const address = server.address() as AddressInfo
      resolve({
        url: `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`,
        network,
        close: () =>
          new Promise<void>((done) => {
            for (const timer of timers) clearTimeout(timer)
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}

/** A simulator running for the life of a scope (tests, the demo, `herald serve --simulator`). */
export class SimulatorServer extends Context.Tag("@herald/publishers/SimulatorServer")<SimulatorServer, RunningSimulator>() {
  static readonly layer = (options: SimulatorServerOptions = {}) =>
    Layer.scoped(
      SimulatorServer,
      Effect.acquireRelease(
        Effect.promise(() => startSimulator(options)),
        (running) => Effect.promise(() => running.close())
      )
    )
}
