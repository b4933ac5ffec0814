import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Fixtures, makeFixtures, type MediaServer, startMediaServer } from "./MediaTestServer.js"

let fixtures: Fixtures
let server: MediaServer
let png: string
let mp4: string

beforeAll(async () => {
  fixtures = makeFixtures()
  server = await startMediaServer({ storage: "local" })
  const uploaded = await Promise.all([
    server.upload(server.tokens.writer, fixtures.png, { alt_text: "a red square" }, "photo.png"),
    server.upload(server.tokens.writer, fixtures.mp4, {}, "clip.mp4")
  ])
  ;[png, mp4] = await Promise.all(uploaded.map(async (reply) => (await reply.json()).id as string))
}, 30_000)

afterAll(async () => {
  await server?.close()
})

describe("GET /media/{id}", () => {
  it("answers what is known of the file to any key of its project", async () => {
    const reply = await server.call(`/api/v1/media/${png}`, { key: server.tokens.reader })
    expect(reply.status).toBe(200)
    const body = await reply.json()
    expect(body).toEqual({
      id: png,
      kind: "image",
      mime: "image/png",
      bytes: fixtures.png.length,
      width: 64,
      height: 48,
      duration_seconds: null,
      alt_text: "a red square",
      filename: "photo.png",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
    })
    const video = await (await server.call(`/api/v1/media/${mp4}`, { key: server.tokens.reader })).json()
    expect(video).toMatchObject({ kind: "video", mime: "video/mp4", width: 64, height: 48 })
    expect(video.duration_seconds).toBeCloseTo(1.5, 1)
  })

  it("404 media_not_found for another project's media, an unknown id and a malformed one; 401 without a key", async () => {
    for (const path of [`/api/v1/media/${png}`, `/api/v1/media/content/${png}`]) {
      const reply = await server.call(path, { key: server.tokens.other })
      expect(reply.status).toBe(404)
      expect(await reply.json()).toEqual({ error: `media ${png} not found in this project`, code: "media_not_found" })
    }
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const reply = await server.call(`/api/v1/media/content/${id}`, { key: server.tokens.reader })
      expect(reply.status).toBe(404)
      expect((await reply.json()).code).toBe("media_not_found")
    }
    const anonymous = await server.call(`/api/v1/media/content/${png}`)
    expect(anonymous.status).toBe(401)
  })
})

describe("GET /media/content/{id}", () => {
  it("sends the bytes with their own type, cached privately under an ETag", async () => {
    const reply = await server.call(`/api/v1/media/content/${png}`, { key: server.tokens.reader })
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("image/png")
    expect(reply.headers.get("cache-control")).toBe("private, max-age=86400")
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff")
    expect(reply.headers.get("accept-ranges")).toBe("bytes")
    const etag = reply.headers.get("etag")
    expect(etag).toBe(`"${png}"`)
    expect(Buffer.from(await reply.arrayBuffer())).toEqual(fixtures.png)
    const again = await server.call(`/api/v1/media/content/${png}`, { key: server.tokens.reader, headers: { "if-none-match": etag! } })
    expect(again.status).toBe(304)
    expect((await again.arrayBuffer()).byteLength).toBe(0)
  })

  it("answers one byte range with 206, and 416 for a range outside the file", async () => {
    const size = fixtures.mp4.length
    const first = await server.call(`/api/v1/media/content/${mp4}`, { key: server.tokens.reader, headers: { range: "bytes=0-99" } })
    expect(first.status).toBe(206)
    expect(first.headers.get("content-type")).toBe("video/mp4")
    expect(first.headers.get("content-range")).toBe(`bytes 0-99/${size}`)
    expect(Buffer.from(await first.arrayBuffer())).toEqual(fixtures.mp4.subarray(0, 100))
    const tail = await server.call(`/api/v1/media/content/${mp4}`, { key: server.tokens.reader, headers: { range: "bytes=-10" } })
    expect(tail.headers.get("content-range")).toBe(`bytes ${size - 10}-${size - 1}/${size}`)
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(fixtures.mp4.subarray(size - 10))
    const outside = await server.call(`/api/v1/media/content/${mp4}`, { key: server.tokens.reader, headers: { range: `bytes=${size}-` } })
    expect(outside.status).toBe(416)
    expect(outside.headers.get("content-range")).toBe(`bytes */${size}`)
    expect(await outside.json()).toEqual({ error: `the range bytes=${size}- starts past the end of the file (${size} bytes)`, code: "range_not_satisfiable" })
    // Several ranges: the whole file, as HTTP allows.
    const several = await server.call(`/api/v1/media/content/${mp4}`, { key: server.tokens.reader, headers: { range: "bytes=0-1,5-6" } })
    expect(several.status).toBe(200)
    expect((await several.arrayBuffer()).byteLength).toBe(size)
  })
})
