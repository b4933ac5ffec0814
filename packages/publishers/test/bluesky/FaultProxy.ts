/**
 * A loopback HTTP proxy in front of the local PDS that injects the faults a real network has: an
 * answer the test chooses instead of the PDS's, a request the PDS carries out but whose answer
 * never comes back (or whose connection is cut), access tokens the PDS judges expired. Everything
 * else passes through unchanged, so the PDS's own answers are what the route reads. It also
 * keeps account of the posts written and deleted through it, and of session refreshes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { FakePost, InjectedReply } from "../kit/publisherContract.js"


export interface FaultProxy {
  readonly url: string
  /** The next XRPC call (or the next one to `nsid`) gets this answer; the PDS never sees it. */
  readonly failNext: (reply: InjectedReply, nsid?: string) => void
  /** The next XRPC call (or the next one to `nsid`) reaches the PDS, which acts on it, but no answer comes back. */
  readonly hangNext: (nsid?: string) => void
  /** Like hangNext, but the connection is cut once the PDS has acted, instead of left open. */
  readonly dropNext: (nsid?: string) => void
  /**
   * The access token of the next authenticated call stops working: from then on, until the session
   * is renewed, every call carrying it carries it as the PDS will judge it two hours on, expired.
   * Refreshing still works.
   */
  readonly expireToken: () => void
  /** Calls wait until `work` is done (a change to the PDS a synchronous control started). */
  readonly holdUntil: (work: Promise<unknown>) => void
  /** The posts the PDS confirmed writing, until it confirmed deleting them. */
  readonly posts: () => ReadonlyArray<FakePost>
  /** How many sessions the PDS renewed (refreshSession answered 200). */
  readonly refreshes: () => number
  readonly close: () => Promise<void>
}

type Fault =
  | { readonly kind: "fail"; readonly reply: InjectedReply; readonly nsid: string | undefined }
  | { readonly kind: "hang" | "drop"; readonly nsid: string | undefined }

/** Logging in and renewing a session are not the calls faults are aimed at, unless named. */
const sessionCalls = new Set(["com.atproto.server.createSession", "com.atproto.server.refreshSession"])

const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

const parse = (bytes: Buffer): Record<string, unknown> => {
  try {
    return JSON.parse(bytes.toString("utf8")) as Record<string, unknown>
  } catch {
    return {}
  }
}

const mediaCount = (embed: unknown): number => {
  const value = embed as { $type?: string; images?: ReadonlyArray<unknown> } | undefined
  return value?.$type === "app.bsky.embed.images" ? value.images?.length ?? 0 : value?.$type === "app.bsky.embed.video" ? 1 : 0
}

export const startFaultProxy = async (
  target: string,
  expiredCopy: (accessJwt: string) => string
): Promise<FaultProxy> => {
  const faults: Array<Fault> = []
  const expired = new Set<string>()
  const posts = new Map<string, FakePost>()
  let expireNext = false
  let refreshes = 0
  const hanging = new Set<ServerResponse>()
  let held: Promise<unknown> = Promise.resolve()

  const takeFault = (nsid: string): Fault | undefined => {
    const index = faults.findIndex((fault) => fault.nsid === nsid || (fault.nsid === undefined && !sessionCalls.has(nsid)))
    return index === -1 ? undefined : faults.splice(index, 1)[0]
  }

  /** What the PDS did, as far as the proxy keeps account of it. */
  const record = (nsid: string, sent: Record<string, unknown>, answer: Record<string, unknown>) => {
    if (nsid === "com.atproto.server.refreshSession") {
      refreshes++
      // A renewed session may carry a byte-identical access token (same claims, same second).
      expired.clear()
    }
    if (nsid === "com.atproto.repo.createRecord" && typeof answer.uri === "string") {
      const value = sent.record as { text?: string; embed?: unknown } | undefined
      posts.set(answer.uri, { id: answer.uri, text: value?.text ?? null, media: mediaCount(value?.embed) })
    }
    if (nsid === "com.atproto.repo.deleteRecord") posts.delete(`at://${String(sent.repo)}/${String(sent.collection)}/${String(sent.rkey)}`)
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    await held
    const url = new URL(request.url ?? "/", target)
    const nsid = url.pathname.replace(/^\/xrpc\//, "")
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
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1]
    if (bearer !== undefined && !sessionCalls.has(nsid)) {
      if (expireNext) {
        expireNext = false
        expired.add(bearer)
      }
      if (expired.has(bearer)) headers.authorization = `Bearer ${expiredCopy(bearer)}`
    }
    const answer = await fetch(url, {
      method: request.method ?? "GET",
      headers,
      ...(request.method === "GET" || request.method === "HEAD" ? {} : { body })
    })
    const payload = Buffer.from(await answer.arrayBuffer())
    if (answer.ok) record(nsid, parse(body), parse(payload))
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
    holdUntil: (work) => {
      held = Promise.all([held, work])
    },
    posts: () => Array.from(posts.values()),
    refreshes: () => refreshes,
    close: () =>
      new Promise((resolve) => {
        for (const response of hanging) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
