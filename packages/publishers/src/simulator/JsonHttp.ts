import { Data, Effect, type Scope } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"

/** A platform's answer: its status, the Retry-After it sent, and the body as text. */
export interface JsonAnswer {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly body: string
}

/**
 * The exchange broke off. `sent` is false only when the request provably never left (the
 * connection was refused or the host unknown), so it cannot have landed on the platform.
 */
export class TransportError extends Data.TaggedError("TransportError")<{ readonly message: string; readonly sent: boolean }> {}

/** A connection that was refused never carried the request: safe to retry. Anything else may have. */
const neverSent = (error: unknown): boolean => {
  for (let cause = error; typeof cause === "object" && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    const code = (cause as { code?: unknown }).code
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN") return true
  }
  return false
}

export interface JsonHttp {
  /** One exchange; interrupting it destroys the request (and its connection). */
  readonly send: (method: "GET" | "POST" | "DELETE", path: string, body?: string) => Effect.Effect<JsonAnswer, TransportError>
}

/**
 * A JSON-over-HTTP client for one base URL, on keep-alive connections that live as long as the
 * scope. The dispatcher calls a platform once per delivery: a general client's request and
 * response pipeline (URL and header objects, body streams, a scope and a span per call) cost its
 * process more than the exchange itself does (bench/README.md, Dispatch: the publisher's client),
 * so the simulator route talks HTTP directly.
 */
export const makeJsonHttp = (baseUrl: string): Effect.Effect<JsonHttp, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => {
        const url = new URL(baseUrl)
        const secure = url.protocol === "https:"
        return { url, secure, agent: secure ? new Https.Agent({ keepAlive: true }) : new Http.Agent({ keepAlive: true }) }
      }),
      ({ agent }) => Effect.sync(() => agent.destroy())
    ),
    ({ agent, secure, url }): JsonHttp => {
      const prefix = url.pathname.replace(/\/$/, "")
      const port = url.port === "" ? undefined : Number(url.port)
      // URL keeps an IPv6 host in brackets; the socket wants it bare.
      const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
      const open = secure ? Https.request : Http.request
      const send = (method: "GET" | "POST" | "DELETE", path: string, body?: string) =>
        Effect.async<JsonAnswer, TransportError>((resume) => {
          const where = `${method} ${url.origin}${prefix}${path}`
          let settled = false
          const settle = (answer: Effect.Effect<JsonAnswer, TransportError>) => {
            if (settled) return
            settled = true
            resume(answer)
          }
          const request = open({
            host,
            port,
            method,
            path: prefix + path,
            agent,
            headers: body === undefined
              ? { accept: "application/json" }
              : { accept: "application/json", "content-type": "application/json", "content-length": Buffer.byteLength(body) }
          }, (response) => {
            const chunks: Array<Buffer> = []
            response.on("data", (chunk: Buffer) => chunks.push(chunk))
            response.on("end", () => {
              const retryAfter = response.headers["retry-after"]
              settle(Effect.succeed({ status: response.statusCode ?? 0, retryAfter, body: Buffer.concat(chunks).toString("utf8") }))
            })
            response.on("error", (error) => settle(Effect.fail(new TransportError({ message: `${where}: the answer broke off (${error.message})`, sent: true }))))
          })
          request.on("error", (error) => settle(Effect.fail(new TransportError({ message: `${where}: ${error.message}`, sent: !neverSent(error) }))))
          request.end(body)
          return Effect.sync(() => {
            settled = true
            request.destroy()
          })
        })
      return { send }
    }
  )
