import { OpenApi } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { HeraldApi } from "../../src/index.js"
import { startServer } from "../TestServer.js"

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const document: any = OpenApi.fromApi(HeraldApi)
const statuses = (path: string) => Object.keys(document.paths[path].post.responses).sort()

describe("the media endpoints in the OpenAPI document", () => {
  it("list every status of the contract's media table", () => {
    expect(statuses("/api/v1/media")).toEqual(["200", "400", "401", "403", "404", "409", "413", "415", "422", "429", "500", "503"])
    // 404: the project a Herald-Project header names may not exist (the operator's, docs/api.md).
    expect(statuses("/api/v1/media/ticket")).toEqual(["200", "400", "401", "403", "404", "429", "500", "503"])
    expect(statuses("/api/v1/media/attach/{ticket}")).toEqual(["200", "400", "404", "409", "413", "415", "422", "500", "503"])
    expect(Object.keys(document.paths["/api/v1/media"].post.requestBody.content)).toEqual(["application/json", "multipart/form-data"])
    expect(document.paths["/api/v1/media/attach/{ticket}"].post.security).toEqual([])
  })
})

describe("POST /media without media configured (the REST test server)", () => {
  it("answers 503 before reading any body, 403 first to a key without posts:write, 404 for an unknown attach ticket", async () => {
    const server = await startServer()
    try {
      const text = await server.call("/api/v1/media", {
        method: "POST",
        key: server.tokens.writer.key,
        headers: { "content-type": "text/plain" },
        body: "hello"
      })
      // Storage is checked before the body: without storage there is nothing to refuse it for.
      expect(text.status).toBe(503)
      const reader = await server.call("/api/v1/media/ticket", { method: "POST", key: server.tokens.reader.key })
      expect(reader.status).toBe(403)
      const ticket = await server.call("/api/v1/media/ticket", { method: "POST", key: server.tokens.writer.key })
      expect([ticket.status, (await ticket.json()).code]).toEqual([503, "media_storage_unavailable"])
      const attach = await server.call("/api/v1/media/attach/upl_unknown", { method: "POST", body: new FormData() })
      expect([attach.status, (await attach.json()).code]).toEqual([404, "ticket_not_found"])
    } finally {
      await server.close()
    }
  })
})
