/**
 * A loopback HTTP proxy in front of the local PDS that injects the faults a real network has: an
 * answer the test chooses instead of the PDS's, a request the PDS carries out but whose answer
 * never comes back, an access token the PDS judges expired. Everything else passes through
 * unchanged, so the PDS's own answers are what the route reads.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface InjectedReply {
  readonly status: number
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export interface FaultProxy {
  readonly url: string
  /** The next XRPC call (or the next one to `nsid`) gets this answer; the PDS never sees it. */
  readonly failNext: (reply: InjectedReply, nsid?: string) => void
  /** The next XRPC call (or the next one to `nsid`) reaches the PDS, which acts on it, but no answer comes back. */
  readonly hangNext: (nsid?: string) => void
  /** Like hangNext, but the connection is cut once the PDS has acted, instead of left open. */
  readonly dropNext: (nsid?: string) => void
  /** The next authenticated call carries its access token as the PDS will judge it two hours on: expired. */
  readonly expireToken: () => void
  /** The nsids of the calls that passed through, in order. */
  readonly calls: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

type Fault =
  | { readonly kind: "fail"; readonly reply: InjectedReply; readonly nsid: string | undefined }
  | { readonly kind: "hang" | "drop"; readonly nsid: string | undefined }

const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

export const startFaultProxy = async (
  target: string,
  expiredCopy: (accessJwt: string) => string
): Promise<FaultProxy> => {
  const faults: Array<Fault> = []
  const calls: Array<string> = []
  let expireNext = false
  const hanging = new Set<ServerResponse>()

  const takeFault = (nsid: string): Fault | undefined => {
    const index = faults.findIndex((fault) => fault.nsid === undefined || fault.nsid === nsid)
    return index === -1 ? undefined : faults.splice(index, 1)[0]
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", target)
    const nsid = url.pathname.replace(/^\/xrpc\//, "")
    calls.push(nsid)
    const body = await readBody(request)
    const fault = takeFault(nsid)
    if (fault?.kind === "fail") {
      response.writeHead(fault.reply.status, { "content-type": "application/json", ...fault.reply.headers })
      response.end(fault.reply.body === undefined ? "" : typeof fault.reply.body === "string" ? fault.reply.body : JSON.stringify(fault.reply.body))
      return
    }
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string" && name !== "host" && name !== "connection") headers[name] = value
    }
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "")
    if (expireNext && bearer !== null && nsid !== "com.atproto.server.refreshSession") {
      expireNext = false
      headers.authorization = `Bearer ${expiredCopy(bearer[1]!)}`
    }
    const answer = await fetch(url, {
      method: request.method ?? "GET",
      headers,
      ...(request.method === "GET" || request.method === "HEAD" ? {} : { body })
    })
    const payload = Buffer.from(await answer.arrayBuffer())
    if (fault?.kind === "hang") {
      hanging.add(response)
      return
    }
    if (fault?.kind === "drop") {
      response.socket?.destroy()
      return
    }
    const replyHeaders: Record<string, string> = {}
    answer.headers.forEach((value, name) => {
      if (name !== "content-encoding" && name !== "content-length" && name !== "transfer-encoding" && name !== "connection") {
        replyHeaders[name] = value
      }
    })
    response.writeHead(answer.status, replyHeaders)
    response.end(payload)
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(502, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: "UpstreamFailure", message: String(error) }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    failNext: (reply, nsid) => faults.push({ kind: "fail", reply, nsid }),
    hangNext: (nsid) => faults.push({ kind: "hang", nsid }),
    dropNext: (nsid) => faults.push({ kind: "drop", nsid }),
    expireToken: () => {
      expireNext = true
    },
    calls,
    close: () =>
      new Promise((resolve) => {
        for (const response of hanging) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
