// A real HTTPS receiver on loopback for the tests: a self-signed certificate made with the openssl
// CLI (node:crypto cannot issue X.509 certificates), routes for each failure mode, and counters.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import type { IncomingHttpHeaders } from "node:http"
import { createServer } from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, type Scope } from "effect"

export interface SelfSigned {
  readonly key: string
  readonly cert: string
}

export const selfSigned = (): SelfSigned => {
  const dir = mkdtempSync(join(tmpdir(), "herald-webhooks-"))
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1",
      "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,DNS:receiver.test,IP:127.0.0.1,IP:::1"
    ], { stdio: "ignore" })
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface Delivery {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly rawBody: Buffer
  /** The status the receiver answered; undefined while (or when never) answered. */
  status?: number
}

/** How the /flaky route behaves, switchable during a test. */
export type FlakyMode = "ok" | "fail" | "hang"

export interface Receiver {
  readonly origin: string
  readonly port: number
  /** Every request that reached the server, whatever its route. */
  readonly received: Array<Delivery>
  readonly hits: (path: string) => number
  /** Bytes the /endless route managed to write before the client went away. */
  readonly endless: { written: number; closed: boolean }
  /** /flaky answers 200 ("ok"), 503 ("fail") or never ("hang"). */
  readonly flaky: { mode: FlakyMode }
}

const chunk = Buffer.alloc(64 * 1024, "x")

/** `port` reopens a receiver where an earlier one listened (a receiver that was down comes back). */
export const receiver = (tls: SelfSigned, options: { readonly port?: number } = {}): Effect.Effect<Receiver, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ receiver: Receiver; close: () => Promise<void> }>((resume) => {
      const received: Array<Delivery> = []
      const endless = { written: 0, closed: false }
      const flaky: { mode: FlakyMode } = { mode: "ok" }
      const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
        const parts: Array<Buffer> = []
        req.on("data", (part: Buffer) => parts.push(part))
        req.on("end", () => {
          const path = new URL(req.url ?? "/", "https://receiver").pathname
          const delivery: Delivery = { path, headers: req.headers, rawBody: Buffer.concat(parts) }
          received.push(delivery)
          res.on("finish", () => {
            delivery.status = res.statusCode
          })
          switch (path) {
            case "/flaky":
              if (flaky.mode === "hang") return
              return res.writeHead(flaky.mode === "ok" ? 200 : 503).end(flaky.mode === "ok" ? "ok" : "try later")
            case "/hook":
            case "/target":
              return res.writeHead(200, { "content-type": "text/plain" }).end("ok")
            case "/fail":
              return res.writeHead(500).end("boom")
            case "/hang":
              return // never answers
            case "/redirect":
              return res.writeHead(302, { location: "/target" }).end()
            case "/loop":
              return res.writeHead(302, { location: "/loop" }).end()
            case "/to-private":
              return res.writeHead(302, { location: "https://10.0.0.1/secret" }).end()
            case "/to-metadata-name":
              return res.writeHead(307, { location: "https://metadata.test/latest/meta-data/" }).end()
            case "/long-reply":
              return res.writeHead(200).end("y".repeat(10_000))
            case "/endless": {
              res.writeHead(200, { "content-type": "application/octet-stream" })
              res.on("close", () => {
                endless.closed = true
              })
              const pump = (): void => {
                while (!res.destroyed && endless.written < 1024 ** 3) {
                  endless.written += chunk.length
                  if (!res.write(chunk)) {
                    res.once("drain", pump)
                    return
                  }
                }
              }
              return pump()
            }
            default:
              return res.writeHead(404).end()
          }
        })
      })
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        resume(Effect.succeed({
          receiver: {
            origin: `https://receiver.test:${port}`,
            port,
            received,
            hits: (path) => received.filter((delivery) => delivery.path === path).length,
            endless,
            flaky
          },
          close: () =>
            new Promise<void>((done) => {
              server.closeAllConnections()
              server.close(() => done())
            })
        }))
      })
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ receiver }) => receiver))
