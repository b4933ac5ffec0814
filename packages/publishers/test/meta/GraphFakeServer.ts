/**
 * What every fake of a Graph host shares: a loopback HTTP server that reads a request's method,
 * path, parameters (query, form or JSON body, as Graph takes them all) and token (a Bearer or
 * `OAuth` header, or access_token), answers Meta's error envelope (`{ error: { message, type,
 * code, error_subcode, is_transient, error_user_title, error_user_msg, fbtrace_id } }`), and lets
 * a test inject a reply or leave one call unanswered. A platform's fake gives it the handler for
 * its paths.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { InjectedReply } from "../kit/publisherContract.js"
import { callsStartingWith, FaultQueue } from "../kit/FaultQueue.js"

/** One request as a handler sees it. */
export interface GraphRequest {
  readonly method: string
  /** The path without its version: ["me", "accounts"]. */
  readonly parts: ReadonlyArray<string>
  /** The version the path named (v26.0), or null for an unversioned path. */
  readonly version: string | null
  readonly path: string
  readonly url: URL
  /** Query, form and JSON fields together (later ones win), each as Graph reads it: a string. */
  readonly params: Readonly<Record<string, string>>
  readonly headers: IncomingMessage["headers"]
  /** The raw body (an upload's bytes). */
  readonly body: Buffer
  /** The token the call carries, if any. */
  readonly token: string | undefined
}

export interface GraphErrorFields {
  readonly message: string
  readonly code: number
  readonly type?: string
  readonly error_subcode?: number
  readonly is_transient?: boolean
  readonly error_user_title?: string
  readonly error_user_msg?: string
}

/** Meta's envelope around an error, with a fresh fbtrace_id. */
export const envelope = (error: GraphErrorFields) => ({
  error: { type: "OAuthException", ...error, fbtrace_id: `A${randomBytes(8).toString("hex")}` }
})

/** Meta's body for a status a test injects without one. */
export const defaultFault = (status: number): GraphErrorFields =>
  status === 429
    ? { message: "(#4) Application request limit reached", code: 4, is_transient: true }
    : status >= 500
    ? { message: "An unexpected error has occurred. Please retry your request later.", code: 2, is_transient: true }
    : { message: `HTTP ${status}`, code: 1 }

export class GraphReply {
  constructor(readonly res: ServerResponse) {}

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.res.writeHead(status, { "content-type": "application/json", ...headers })
    this.res.end(JSON.stringify(body))
  }

  error(status: number, error: GraphErrorFields): void {
    this.json(status, envelope(error))
  }

  /** Graph's answer for an object that does not exist or is not the token's to see. */
  unsupported(method: string, id: string): void {
    this.error(400, {
      message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: "GraphMethodException",
      code: 100,
      error_subcode: 33
    })
  }

  permission(permission: string): void {
    this.error(403, { message: `(#200) The user hasn't authorized the application to perform this action (${permission})`, code: 200 })
  }

  invalidToken(): void {
    this.error(400, { message: "Invalid OAuth access token - Cannot parse access token", code: 190 })
  }

  redirect(location: string): void {
    this.res.writeHead(302, { location })
    this.res.end()
  }
}

export type GraphHandler = (request: GraphRequest, reply: GraphReply) => void | Promise<void>

const readBody = async (req: IncomingMessage) => {
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

const paramsOf = (url: URL, headers: IncomingMessage["headers"], body: Buffer): Record<string, string> => {
  const params: Record<string, string> = Object.fromEntries(url.searchParams)
  const type = headers["content-type"] ?? ""
  if (type.startsWith("application/x-www-form-urlencoded")) Object.assign(params, Object.fromEntries(new URLSearchParams(body.toString("utf8"))))
  if (type.startsWith("application/json") && body.length > 0) {
    const parsed = JSON.parse(body.toString("utf8")) as Record<string, unknown>
    for (const [name, value] of Object.entries(parsed)) params[name] = typeof value === "string" ? value : JSON.stringify(value)
  }
  return params
}

export class GraphFakeServer {
  /** Every call but the unanswered dialog, as `METHOD /path?query`. */
  readonly calls: Array<string> = []
  private readonly faults = new FaultQueue<InjectedReply>()
  private hangs = 0
  private readonly hung: Array<ServerResponse> = []
  private server: Server | undefined
  private base = ""

  /**
   * `handler` answers every call; `exempt` names calls that injected faults and hangs skip (the
   * login dialog and the token endpoint, as the contract's faults are for API calls).
   */
  constructor(private readonly handler: GraphHandler, private readonly exempt: (request: GraphRequest) => boolean = () => false) {}

  get url(): string {
    return this.base
  }

  start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) new GraphReply(res).error(500, { message: String(error), code: 2, is_transient: true })
        else res.destroy()
      })
    })
    return new Promise((resolve) => {
      this.server!.listen(0, "127.0.0.1", () => {
        this.base = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
        resolve()
      })
    })
  }

  stop(): Promise<void> {
    for (const res of this.hung.splice(0)) res.destroy()
    this.server?.closeAllConnections()
    return new Promise((resolve) => this.server === undefined ? resolve() : this.server.close(() => resolve()))
  }

  /**
   * The next API call gets this reply in place of its own; with `only`, the next call that starts
   * with it (`METHOD /path` without the version, e.g. "POST"), so that a fault meant for a publish
   * does not land on a metrics read or a connection check that happens to run first.
   */
  failNext(reply: InjectedReply, options: { readonly only?: string } = {}): void {
    this.faults.push(reply, callsStartingWith(options.only))
  }

  /** The next API call is carried out and never answered. */
  hangNext(): void {
    this.hangs++
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", this.base)
    const body = await readBody(req)
    const versioned = /^\/(v\d+\.\d+)\/(.*)$/.exec(url.pathname)
    const authorization = req.headers.authorization ?? ""
    const params = paramsOf(url, req.headers, body)
    const request: GraphRequest = {
      method: req.method ?? "GET",
      parts: (versioned === null ? url.pathname.slice(1) : versioned[2]!).split("/").filter((part) => part !== ""),
      version: versioned === null ? null : versioned[1]!,
      path: url.pathname,
      url,
      params,
      headers: req.headers,
      body,
      token: /^(?:Bearer|OAuth) (.+)$/.exec(authorization)?.[1] ?? params["access_token"]
    }
    const reply = new GraphReply(res)
    if (this.exempt(request)) return this.handler(request, reply)
    this.calls.push(`${request.method} ${url.pathname}${url.search}`)
    const call = `${request.method} /${request.parts.join("/")}`
    const fault = this.faults.take(call)
    if (fault !== undefined) {
      if (typeof fault.body === "string") {
        res.writeHead(fault.status, { ...fault.headers })
        return res.end(fault.body)
      }
      return reply.json(fault.status, fault.body ?? envelope(defaultFault(fault.status)), { ...fault.headers })
    }
    if (this.hangs > 0) {
      this.hangs--
      this.hung.push(res)
      // Carried out on a reply that goes nowhere.
      const lost = new GraphReply({ writeHead: () => lost.res, end: () => lost.res, headersSent: false } as unknown as ServerResponse)
      return this.handler(request, lost)
    }
    return this.handler(request, reply)
  }
}
