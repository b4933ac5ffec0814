import type { IncomingMessage, ServerResponse } from "node:http"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { FetchHandler } from "./Admission.js"

/** Where Herald hangs in the host's URL space. */
export interface MountOptions {
  /**
   * The path Herald's routes hang from, e.g. "/herald": a request under it reaches Herald with the
   * prefix taken off; any other is passed on (`next`) or, with nothing to pass it to, answered 404.
   * Omitted: Herald answers from the root. Approval links are built from createHerald's publicUrl,
   * so it should end with the same prefix.
   */
  readonly prefix?: string
}

/** A node:http request listener that also fits Connect and Express (`next` passes on a request Herald does not own). */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void

const normalizedPrefix = (prefix: string | undefined) => {
  const trimmed = (prefix ?? "").replace(/\/+$/, "")
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

/** The path under the prefix, or null when the URL is outside it (a prefix matches whole segments only). */
const underPrefix = (url: string, prefix: string): string | null => {
  if (prefix === "") return url
  if (!url.startsWith(prefix)) return null
  const rest = url.slice(prefix.length)
  return rest === "" ? "/" : rest.startsWith("/") ? rest : rest.startsWith("?") ? `/${rest}` : null
}

const notFound = (response: ServerResponse) => {
  response.writeHead(404, { "content-type": "application/json" })
  response.end(JSON.stringify({ error: "no such endpoint", code: "not_found" }))
}

/** The node request as a fetch Request: its body streamed, aborted if the client goes away first. */
const webRequest = (request: IncomingMessage, response: ServerResponse, path: string): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
  }
  const aborted = new AbortController()
  response.once("close", () => {
    if (!response.writableFinished) aborted.abort()
  })
  const method = request.method ?? "GET"
  const hasBody = method !== "GET" && method !== "HEAD"
  return new Request(new URL(path, `http://${request.headers.host ?? "localhost"}`), {
    method,
    headers,
    signal: aborted.signal,
    ...(hasBody ? { body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: "half" } : {})
  } as RequestInit)
}

const writeReply = async (reply: Response, response: ServerResponse) => {
  const headers: Record<string, string | Array<string>> = {}
  reply.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value
  })
  const cookies = reply.headers.getSetCookie()
  if (cookies.length > 0) headers["set-cookie"] = cookies
  response.writeHead(reply.status, headers)
  if (reply.body === null) response.end()
  else await pipeline(Readable.fromWeb(reply.body as import("node:stream/web").ReadableStream<Uint8Array>), response)
}

/** createHerald's fetch handler as a node:http listener (and Connect/Express middleware), mounted at `prefix`. */
export const nodeHandler = (handler: FetchHandler, options: MountOptions = {}): NodeHandler => {
  const prefix = normalizedPrefix(options.prefix)
  return (request, response, next) => {
    const path = underPrefix(request.url ?? "/", prefix)
    if (path === null) return next === undefined ? notFound(response) : next()
    handler(webRequest(request, response, path)).then((reply) => writeReply(reply, response)).catch((error: unknown) => {
      if (next !== undefined && !response.headersSent) return next(error)
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" })
      response.end(response.headersSent ? undefined : JSON.stringify({ error: "internal error", code: "internal_error" }))
    })
  }
}

const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

/** What Herald uses of a Fastify instance (Fastify 4 and 5), so the SDK needs no Fastify of its own. */
export interface FastifyLike {
  removeAllContentTypeParsers(): void
  addContentTypeParser(type: string, parser: (request: unknown, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void): void
  route(options: {
    readonly method: Array<typeof methods[number]>
    readonly url: string
    readonly exposeHeadRoute?: boolean
    readonly handler: (request: { readonly raw: IncomingMessage }, reply: { readonly raw: ServerResponse; hijack(): void }) => void
  }): unknown
}


/**
 * A Fastify plugin serving Herald under `prefix`: `app.register(herald.fastify({ prefix: "/herald" }))`
 * (give the prefix here, not to register). Inside the plugin's own context Fastify parses no body,
 * so Herald reads each request's bytes itself (its size limits and checks apply as on REST).
 */
export const fastifyPlugin = (handler: FetchHandler, options: MountOptions = {}) => {
  const prefix = normalizedPrefix(options.prefix)
  const node = nodeHandler(handler, { prefix })
  return async (fastify: FastifyLike): Promise<void> => {
    fastify.removeAllContentTypeParsers()
    fastify.addContentTypeParser("*", (_request, _payload, done) => done(null))
    fastify.route({
      method: [...methods],
      url: `${prefix}/*`,
      exposeHeadRoute: false,
      handler: (request, reply) => {
        reply.hijack()
        node(request.raw, reply.raw)
      }
    })
  }
}
