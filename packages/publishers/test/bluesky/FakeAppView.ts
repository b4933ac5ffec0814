/**
 * The one AppView query Herald makes, app.bsky.feed.getPosts, on loopback. The local PDS proxies
 * to it as it would to api.bsky.app. Posts come from the PDS's repository (a deleted post is left
 * out of the reply, as the AppView does); their counts are whatever the test set, since no
 * offline peer likes or reposts. The reply follows app.bsky.feed.defs#postView.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface Counts {
  readonly likeCount?: number
  readonly repostCount?: number
  readonly replyCount?: number
  readonly quoteCount?: number
  readonly bookmarkCount?: number
}

export interface FakeAppView {
  readonly url: string
  readonly did: string
  /** Points the fake at the PDS whose records it serves (known only once the PDS is up). */
  readonly servePds: (pdsUrl: string) => void
  readonly setCounts: (uri: string, counts: Counts) => void
  /** The Authorization header of every getPosts the PDS proxied, in order. */
  readonly authorizations: ReadonlyArray<string | undefined>
  readonly close: () => Promise<void>
}

export const startFakeAppView = async (): Promise<FakeAppView> => {
  const counts = new Map<string, Counts>()
  const authorizations: Array<string | undefined> = []
  let pdsUrl = ""
  const view = async (uri: string) => {
    const [, , did, collection, rkey] = uri.split("/")
    const found = await fetch(
      `${pdsUrl}/xrpc/com.atproto.repo.getRecord?${new URLSearchParams({ repo: did!, collection: collection!, rkey: rkey! })}`
    )
    if (!found.ok) return null
    const record = (await found.json()) as { cid: string; value: unknown }
    return {
      uri,
      cid: record.cid,
      author: { did, handle: "handle.invalid" },
      record: record.value,
      indexedAt: new Date().toISOString(),
      ...counts.get(uri)
    }
  }
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost")
    if (url.pathname !== "/xrpc/app.bsky.feed.getPosts") {
      response.writeHead(501, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: "MethodNotImplemented", message: "Method Not Implemented" }))
      return
    }
    authorizations.push(request.headers.authorization)
    Promise.all(url.searchParams.getAll("uris").map(view)).then(
      (views) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ posts: views.filter((post) => post !== null) }))
      },
      (error: unknown) => {
        response.writeHead(500, { "content-type": "application/json" })
        response.end(JSON.stringify({ error: "InternalServerError", message: String(error) }))
      }
    )
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    did: "did:example:appview",
    servePds: (url) => {
      pdsUrl = url
    },
    setCounts: (uri, value) => counts.set(uri, value),
    authorizations,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
