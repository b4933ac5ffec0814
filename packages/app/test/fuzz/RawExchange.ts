import { request } from "node:http"

/** One request as sent on the wire: the path is raw (already percent-encoded, or deliberately not). */
export interface RawRequest {
  readonly method: string
  readonly path: string
  /** Pairs, so a header may repeat. */
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body?: Buffer | undefined
}

/**
 * What came back: the reply read to its end, or the way the connection failed (a reset, a broken
 * pipe, a socket closed with no reply). `failure` is set even when a reply arrived before the body
 * was all sent: a client like curl reports the send error and drops the reply.
 */
export interface Exchange {
  readonly status: number | null
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: Buffer
  readonly failure: string | null
}

const headerObject = (pairs: RawRequest["headers"]) => {
  const headers: Record<string, Array<string>> = {}
  for (const [name, value] of pairs) (headers[name.toLowerCase()] ??= []).push(value)
  return headers
}

/**
 * Sends one request over node:http on its own connection (no keep-alive, so a reset belongs to
 * this request and no reused socket can fake one) and waits for the whole reply or the failure.
 * `fetch` would hide a reset behind a generic "fetch failed", hence node:http.
 */
export const exchange = (origin: string, raw: RawRequest, timeoutMs = 30_000): Promise<Exchange> =>
  new Promise((resolve) => {
    const url = new URL(origin)
    let settled = false
    let replied = false
    let sent = false
    let status: number | null = null
    let headers: Exchange["headers"] = {}
    const chunks: Array<Buffer> = []
    const settle = (failure: string | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ status, headers, body: Buffer.concat(chunks), failure })
    }
    const timer = setTimeout(() => {
      settle(`no complete reply within ${timeoutMs} ms`)
      outgoing.destroy()
    }, timeoutMs)
    const outgoing = request({
      host: url.hostname,
      port: url.port,
      method: raw.method,
      path: raw.path,
      agent: false,
      // A repeated header is sent once per value. Content-Length is set here: on a GET or DELETE
      // node would send the body unframed, and the server would read it as a second request.
      headers: headerObject(raw.body === undefined ? raw.headers : [...raw.headers, ["content-length", String(raw.body.length)]]),
      maxHeaderSize: 64 * 1024
    })
    outgoing.on("response", (incoming) => {
      status = incoming.statusCode ?? null
      headers = incoming.headers
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
      incoming.on("end", () => {
        replied = true
        if (sent) settle(null)
      })
      incoming.on("error", (error: NodeJS.ErrnoException) => settle(error.code ?? error.message))
      incoming.on("aborted", () => settle("reply cut short"))
    })
    outgoing.on("finish", () => {
      sent = true
      if (replied) settle(null)
    })
    outgoing.on("error", (error: NodeJS.ErrnoException) => settle(error.code ?? error.message))
    outgoing.end(raw.body)
  })
