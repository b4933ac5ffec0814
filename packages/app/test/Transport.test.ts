import { afterAll, beforeAll, describe, it } from "vitest"
import { bytesOf, chunked, expectRefusal, rawRequest } from "./RawHttp.js"
import { json, onEachDatabase, type TestHerald } from "./TestHerald.js"

/**
 * What reaches a client at the edges of HTTP, over plain sockets against the reference server:
 * requests node cannot parse and bodies over their route's limit. Every refusal is
 * `{ error, code }`, and the client reads it, having sent what it meant to, without a reset.
 */
const KiB = 1024
const MiB = 1024 * KiB

onEachDatabase("transport edges", (start) => {
  let herald: TestHerald
  let approvalPath: string
  beforeAll(async () => {
    herald = await start()
    const held = await json(await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.agent_key,
      json: { caption: "Held for a person", social_accounts: ["x:herald_demo"] }
    }))
    approvalPath = new URL(held.approval_url).pathname
  }, 120_000)
  afterAll(() => herald?.close())

  const send = (head: string, body?: Iterable<Uint8Array>, readAfterSending = false) =>
    rawRequest(herald.origin, { head, ...(body === undefined ? {} : { body }), readAfterSending })

  describe("requests node cannot parse", () => {
    it("a head over 16 KiB: 431 request_header_too_large, read by the client even when it sends 1 MiB first", async () => {
      for (const size of [20 * KiB, 100 * KiB, MiB]) {
        const reply = await send(`GET /api/v1/project HTTP/1.1\r\nHost: herald\r\nX-Pad: ${"a".repeat(size)}`, undefined, size > 20 * KiB)
        expectRefusal(reply, 431, "request_header_too_large", `${size} bytes`)
      }
    })

    it("a request line over 16 KiB: 414 uri_too_long", async () => {
      for (const size of [20 * KiB, 100 * KiB]) {
        const reply = await send(`GET /api/v1/project?pad=${"a".repeat(size)} HTTP/1.1\r\nHost: herald`, undefined, true)
        expectRefusal(reply, 414, "uri_too_long", `${size} bytes`)
      }
    })

    it("bytes that are not HTTP/1.1: 400 malformed_request", async () => {
      for (
        const head of [
          "GET /api/v1/project HTTP/1.1\r\nHost: herald\r\nno colon here",
          "BREW /api/v1/project HTTP/1.1\r\nHost: herald",
          "GET /api/v1/project HTTP/1.1\r\nHost: herald\r\nContent-Length: 1\r\nContent-Length: 2"
        ]
      ) expectRefusal(await send(head), 400, "malformed_request", head)
    })
  })

  describe("a body over its route's limit: 413 body_too_large, read by the client", () => {
    const routes = () => [
      { path: "/api/v1/posts", type: "application/json", limit: MiB, token: herald.credentials.human_key },
      { path: "/api/v1/posts/bulk", type: "text/csv", limit: 4 * MiB, token: herald.credentials.human_key },
      { path: "/api/v1/media", type: "application/json", limit: 64 * KiB, token: herald.credentials.human_key },
      { path: "/admin/v1/projects", type: "application/json", limit: 64 * KiB, token: herald.credentials.admin_token },
      { path: approvalPath, type: "application/x-www-form-urlencoded", limit: 16 * KiB, token: null }
    ]
    const headOf = (route: ReturnType<typeof routes>[number], framing: string) =>
      [
        `POST ${route.path} HTTP/1.1`,
        "Host: herald",
        `Content-Type: ${route.type}`,
        ...(route.token === null ? [] : [`Authorization: Bearer ${route.token}`]),
        framing
      ].join("\r\n")

    it("streamed within 4x the limit: read to its end, then refused", async () => {
      for (const route of routes()) {
        const reply = await send(headOf(route, "Transfer-Encoding: chunked"), chunked(bytesOf(2 * route.limit)), true)
        expectRefusal(reply, 413, "body_too_large", route.path)
      }
    })

    it("declared within 4x the limit: read to its end, then refused", async () => {
      for (const route of routes()) {
        const reply = await send(headOf(route, `Content-Length: ${2 * route.limit}`), bytesOf(2 * route.limit), true)
        expectRefusal(reply, 413, "body_too_large", route.path)
      }
    })

    it("streamed past 4x the limit: refused while the client still sends, which it gets to finish", async () => {
      for (const route of routes()) {
        for (const readAfterSending of [false, true]) {
          const reply = await send(headOf(route, "Transfer-Encoding: chunked"), chunked(bytesOf(5 * route.limit)), readAfterSending)
          expectRefusal(reply, 413, "body_too_large", `${route.path}, reading ${readAfterSending ? "after" : "while"} sending`)
        }
      }
    })

    it("declared past 4x the limit: refused before it is read, and the client gets to finish", async () => {
      for (const route of routes()) {
        const reply = await send(headOf(route, `Content-Length: ${5 * route.limit}`), bytesOf(5 * route.limit), true)
        expectRefusal(reply, 413, "body_too_large", route.path)
      }
    })
  })
})
