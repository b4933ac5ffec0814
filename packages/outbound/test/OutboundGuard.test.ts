import { type LookupAddress, promises as dns } from "node:dns"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Stream } from "effect"
import { OutboundGuard, type OutboundGuardOptions, type ResolveHost } from "../src/index.js"
import { receiver, selfSigned } from "./Receiver.js"

const tls = selfSigned()

setFlagsFromString("--expose-gc")
const collectGarbage = runInNewContext("gc") as () => void

/** Test names; besides them only "localhost" resolves (through the system, from /etc/hosts). */
const names: Record<string, ReadonlyArray<LookupAddress>> = {
  "receiver.test": [{ address: "127.0.0.1", family: 4 }],
  "loopback.test": [{ address: "127.0.0.1", family: 4 }],
  "internal.test": [{ address: "10.0.0.1", family: 4 }],
  "metadata.test": [{ address: "169.254.169.254", family: 4 }],
  // A public address beside a private one, as a rebinding resolver might answer.
  "rebind.test": [{ address: "93.184.215.14", family: 4 }, { address: "::ffff:127.0.0.1", family: 6 }]
}
const lookups: Array<string> = []
const resolveHost: ResolveHost = async (hostname) => {
  lookups.push(hostname)
  if (hostname === "localhost") return dns.lookup(hostname, { all: true })
  const addresses = names[hostname]
  if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
  return addresses
}

const guarded = (options: OutboundGuardOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.provide(effect, OutboundGuard.layer({ production: false, ca: tls.cert, resolveHost, ...options }))
const strict = guarded({ allowLoopback: false })
const loopbackAllowed = guarded({ allowLoopback: true })

const get = (url: string, options: { readonly followRedirects?: number; readonly maxBytes?: number } = {}) =>
  Effect.gen(function*() {
    const guard = yield* OutboundGuard
    const response = yield* guard.request({
      method: "GET",
      url,
      timeout: "5 seconds",
      maxBytes: options.maxBytes ?? 1024 * 1024,
      followRedirects: options.followRedirects ?? 3
    })
    const body = yield* response.body.bytes
    return { status: response.status, url: response.url.href, body: Buffer.from(body).toString() }
  }).pipe(Effect.scoped)

const refusal = <A, E extends { readonly _tag: string; readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.either(effect).pipe(Effect.map(Either.match({
    onLeft: (error) => `${error._tag}: ${error.message}`,
    onRight: () => "allowed"
  })))

describe("OutboundGuard", () => {
  it.live("refuses the loopback allowance in production mode, explicit or from NODE_ENV", () =>
    Effect.gen(function*() {
      const explicit = yield* refusal(Effect.scoped(OutboundGuard.make({ allowLoopback: true, production: true })))
      expect(explicit).toBe(
        "LoopbackAllowedInProduction: the outbound loopback allowance is for tests and local development and is refused in production mode"
      )
      const previous = process.env.NODE_ENV
      process.env.NODE_ENV = "production"
      const fromEnvironment = yield* refusal(Effect.scoped(OutboundGuard.make({ allowLoopback: true }))).pipe(
        Effect.ensuring(Effect.sync(() => {
          process.env.NODE_ENV = previous
        }))
      )
      expect(fromEnvironment).toMatch(/^LoopbackAllowedInProduction/)
      expect(yield* refusal(Effect.scoped(OutboundGuard.make({ allowLoopback: false, production: true })))).toBe("allowed")
    }))

  it.scopedLive("refuses loopback, private and metadata destinations, whatever their spelling", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const port = server.port
      lookups.length = 0
      const outcomes = {
        localhost: yield* refusal(get(`https://localhost:${port}/target`)),
        "127.0.0.1": yield* refusal(get(`https://127.0.0.1:${port}/target`)),
        "[::1]": yield* refusal(get(`https://[::1]:${port}/target`)),
        "::ffff:127.0.0.1": yield* refusal(get(`https://[::ffff:127.0.0.1]:${port}/target`)),
        "2130706433": yield* refusal(get(`https://2130706433:${port}/target`)),
        "loopback.test": yield* refusal(get(`https://loopback.test:${port}/target`)),
        "rebind.test": yield* refusal(get(`https://rebind.test:${port}/target`)),
        "10.0.0.1": yield* refusal(get("https://10.0.0.1/")),
        "169.254.169.254": yield* refusal(get("https://169.254.169.254/latest/meta-data/")),
        "[fd00:ec2::254]": yield* refusal(get("https://[fd00:ec2::254]/latest/meta-data/")),
        "internal.test": yield* refusal(get("https://internal.test/")),
        "http://": yield* refusal(get(`http://receiver.test:${port}/target`)),
        "ftp://": yield* refusal(get("ftp://receiver.test/")),
        "not a URL": yield* refusal(get("receiver.test/target"))
      }
      expect(outcomes).toEqual({
        localhost: expect.stringMatching(/^OutboundRefused: outbound request refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/),
        "127.0.0.1": "OutboundRefused: outbound request refused: 127.0.0.1 is a loopback address",
        "[::1]": "OutboundRefused: outbound request refused: ::1 is a loopback address",
        "::ffff:127.0.0.1": "OutboundRefused: outbound request refused: ::ffff:7f00:1 is an IPv4-mapped address",
        "2130706433": "OutboundRefused: outbound request refused: 127.0.0.1 is a loopback address",
        "loopback.test": "OutboundRefused: outbound request refused: loopback.test resolves to 127.0.0.1, a loopback address",
        "rebind.test": "OutboundRefused: outbound request refused: rebind.test resolves to ::ffff:127.0.0.1, an IPv4-mapped address",
        "10.0.0.1": "OutboundRefused: outbound request refused: 10.0.0.1 is a private address",
        "169.254.169.254": "OutboundRefused: outbound request refused: 169.254.169.254 is the cloud metadata address",
        "[fd00:ec2::254]": "OutboundRefused: outbound request refused: fd00:ec2::254 is the cloud metadata address",
        "internal.test": "OutboundRefused: outbound request refused: internal.test resolves to 10.0.0.1, a private address",
        "http://": `OutboundRefused: outbound request refused: receiver.test:${port} is reached over http; only https is allowed`,
        "ftp://": "OutboundRefused: outbound request refused: receiver.test is reached over ftp; only https is allowed",
        "not a URL": "OutboundRefused: outbound request refused: the URL is not a valid absolute URL"
      })
      // Literal addresses are judged before any connection, so they never reach the resolver either.
      expect(lookups.sort()).toEqual(["internal.test", "localhost", "loopback.test", "rebind.test"])
      expect(server.received).toEqual([])
    }).pipe(strict))

  it.scopedLive("refuses IPv6 forms carrying an IPv4 address before connecting, even with the loopback allowance", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const guard = yield* OutboundGuard
      const port = server.port
      const outcomes = {
        "https://[::127.0.0.1]/a.png": yield* refusal(get("https://[::127.0.0.1]/a.png")),
        compatible: yield* refusal(get(`https://[::127.0.0.1]:${port}/target`)),
        mapped: yield* refusal(get(`https://[::ffff:127.0.0.1]:${port}/target`)),
        nat64: yield* refusal(get(`https://[64:ff9b::127.0.0.1]:${port}/target`)),
        "6to4": yield* refusal(get(`https://[2002:7f00:1::1]:${port}/target`)),
        teredo: yield* refusal(get(`https://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${port}/target`)),
        check: yield* refusal(guard.check("https://[::127.0.0.1]/hook"))
      }
      expect(outcomes).toEqual({
        "https://[::127.0.0.1]/a.png": "OutboundRefused: outbound request refused: ::7f00:1 is an IPv4-compatible address",
        compatible: "OutboundRefused: outbound request refused: ::7f00:1 is an IPv4-compatible address",
        mapped: "OutboundRefused: outbound request refused: ::ffff:7f00:1 is an IPv4-mapped address",
        nat64: "OutboundRefused: outbound request refused: 64:ff9b::7f00:1 is a NAT64 address",
        "6to4": "OutboundRefused: outbound request refused: 2002:7f00:1::1 is a 6to4 address",
        teredo: "OutboundRefused: outbound request refused: 2001:0:4136:e378:8000:63bf:80ff:fffe is a Teredo address",
        check: "OutboundRefused: outbound request refused: ::7f00:1 is an IPv4-compatible address"
      })
      expect(server.received).toEqual([])
    }).pipe(loopbackAllowed))

  it.scopedLive("with the loopback allowance, reaches the test receiver and still refuses private addresses", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      expect(yield* get(`${server.origin}/target`)).toEqual({ status: 200, url: `${server.origin}/target`, body: "ok" })
      expect(yield* refusal(get("https://10.0.0.1/"))).toBe("OutboundRefused: outbound request refused: 10.0.0.1 is a private address")
      expect(yield* refusal(get("https://metadata.test/"))).toBe(
        "OutboundRefused: outbound request refused: metadata.test resolves to 169.254.169.254, the cloud metadata address"
      )
    }).pipe(loopbackAllowed))

  it.scopedLive("follows GET redirects within the hop limit and re-validates every hop", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      expect(yield* get(`${server.origin}/redirect`)).toEqual({ status: 200, url: `${server.origin}/target`, body: "ok" })
      expect(yield* refusal(get(`${server.origin}/loop`, { followRedirects: 2 }))).toBe(
        `TooManyRedirects: receiver.test:${server.port} redirected more than 2 time(s)`
      )
      expect(server.hits("/loop")).toBe(3)
      expect(yield* refusal(get(`${server.origin}/to-private`))).toBe(
        "OutboundRefused: outbound request refused: 10.0.0.1 is a private address"
      )
      expect(yield* refusal(get(`${server.origin}/to-metadata-name`))).toBe(
        "OutboundRefused: outbound request refused: metadata.test resolves to 169.254.169.254, the cloud metadata address"
      )
    }).pipe(loopbackAllowed))

  it.scopedLive("refuses a whole-body read past the size cap and hangs up", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const outcome = yield* refusal(get(`${server.origin}/endless`, { maxBytes: 4 * 1024 * 1024 }))
      expect(outcome).toBe(`ResponseTooLarge: the response from receiver.test:${server.port} exceeds 4194304 bytes`)
      yield* Effect.sleep("100 millis")
      expect(server.endless.closed).toBe(true)
      // The server would write 1 GiB; the client hung up after a few MiB.
      expect(server.endless.written).toBeLessThan(64 * 1024 * 1024)
    }).pipe(loopbackAllowed))

  it.scopedLive("streams a large body with memory flat and aborts it past the cap", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const guard = yield* OutboundGuard
      const maxBytes = 64 * 1024 * 1024
      // Retained memory, not garbage waiting for a collection: collect before each sample. A sample
      // every 16 MiB (a full collection of the worker's heap each): a body held whole is past the
      // bound below at the first.
      const retained = () => {
        collectGarbage()
        return process.memoryUsage().arrayBuffers
      }
      const before = retained()
      let peak = before
      let seen = 0
      const outcome = yield* refusal(Effect.scoped(Effect.gen(function*() {
        const response = yield* guard.request({ method: "GET", url: `${server.origin}/endless`, timeout: "20 seconds", maxBytes, followRedirects: 0 })
        yield* Stream.runForEach(response.body.stream, (chunk) =>
          Effect.sync(() => {
            seen += chunk.byteLength
            if (seen % (16 * 1024 * 1024) < chunk.byteLength) peak = Math.max(peak, retained())
          }))
      })))
      expect(outcome).toBe(`ResponseTooLarge: the response from receiver.test:${server.port} exceeds ${maxBytes} bytes`)
      expect(seen).toBeGreaterThan(maxBytes - 1024 * 1024)
      expect(seen).toBeLessThanOrEqual(maxBytes)
      // 64 MiB went through; what was held at any moment stayed a small fraction of it.
      expect(peak - before).toBeLessThan(16 * 1024 * 1024)
    }).pipe(loopbackAllowed))

  it.scopedLive("times out a destination that never answers", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const guard = yield* OutboundGuard
      const outcome = yield* refusal(Effect.scoped(guard.request({
        method: "GET",
        url: `${server.origin}/hang`,
        timeout: "300 millis",
        maxBytes: 1024,
        followRedirects: 0
      })))
      expect(outcome).toBe(`OutboundTimeout: receiver.test:${server.port} did not answer within 300 ms`)
    }).pipe(loopbackAllowed))
})
