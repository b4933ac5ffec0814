import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bodyLimits } from "../src/index.js"
import { startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const send = (body: NonNullable<RequestInit["body"]>, contentType: string | null, path = "/api/v1/posts", method = "POST") =>
  server.call(path, {
    method,
    key: server.tokens.human.key,
    body,
    headers: contentType === null ? {} : { "content-type": contentType }
  })

describe("no bad input produces a 500", () => {
  it("400 malformed_body for malformed JSON", async () => {
    const reply = await send("{\"caption\": ", "application/json")
    expect(reply.status).toBe(400)
    expect((await reply.json()).code).toBe("malformed_body")
  })

  it("400 malformed_body for bytes that are not UTF-8", async () => {
    const reply = await send(new Uint8Array([0x7b, 0x22, 0x63, 0xff, 0xfe, 0x22, 0x7d]), "application/json")
    expect(reply.status).toBe(400)
    expect((await reply.json()).error).toContain("UTF-8")
  })

  it("400 invalid_request naming every invalid field, nested ones by path", async () => {
    const reply = await server.call("/api/v1/posts", {
      method: "POST",
      key: server.tokens.human.key,
      json: { caption: 7, social_accounts: ["x:acme", 3], is_draft: "yes", platform_configurations: { x: { thread: "no" } }, surprise: true }
    })
    expect(reply.status).toBe(400)
    const body = await reply.json()
    expect(body.code).toBe("invalid_request")
    const fields = body.violations.map((v: { field: string }) => v.field)
    expect(fields).toEqual(expect.arrayContaining(["caption", "social_accounts[1]", "is_draft", "surprise"]))
    expect(fields.some((field: string) => field.startsWith("platform_configurations.x"))).toBe(true)
    for (const field of ["caption", "social_accounts[1]", "is_draft", "surprise"]) expect(body.error).toContain(field)
  })

  it("400 for a JSON body that is not an object, and for an empty body", async () => {
    const array = await send("[1,2]", "application/json")
    expect(array.status).toBe(400)
    expect((await array.json()).violations[0].field).toBe("body")
    const empty = await send("", "application/json")
    expect(empty.status).toBe(400)
  })

  it("400 for a path id that is not a uuid", async () => {
    const reply = await server.call("/api/v1/posts/not-a-uuid", { method: "DELETE", key: server.tokens.human.key })
    expect(reply.status).toBe(400)
    expect((await reply.json()).violations[0].field).toBe("id")
  })

  it("415 for a content type the endpoint does not take, or none, or another charset", async () => {
    for (const type of ["text/plain", "text/csv", "application/x-www-form-urlencoded", null, "application/json; charset=latin1"]) {
      const reply = await send("caption=hi", type)
      expect(reply.status, String(type)).toBe(415)
      expect((await reply.json()).code).toBe("unsupported_media_type")
    }
  })

  it("413 body_too_large above the JSON limit, announced or streamed", async () => {
    const big = JSON.stringify({ caption: "a".repeat(bodyLimits["application/json"]!), social_accounts: ["x:acme"] })
    const reply = await send(big, "application/json")
    expect(reply.status).toBe(413)
    expect((await reply.json()).code).toBe("body_too_large")
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(32))
        controller.close()
      }
    })
    const streamed = await server.call("/api/v1/guardrails/check", {
      method: "POST",
      key: server.tokens.human.key,
      body: chunks,
      headers: { "content-type": "application/json" },
      duplex: "half"
    } as RequestInit)
    expect(streamed.status).toBe(413)
  })

  it("404 not_found as JSON for an unknown path", async () => {
    const reply = await server.call("/api/v1/nothing-here", { key: server.tokens.human.key })
    expect(reply.status).toBe(404)
    expect(await reply.json()).toEqual({ error: "no such endpoint", code: "not_found" })
  })
})
