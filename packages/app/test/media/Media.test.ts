import * as Fs from "node:fs"
import * as Path from "node:path"
import { ApiKeyId, UploadTicket, UploadTickets } from "@herald/core"
import { DateTime, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Fixtures,
  type Json,
  lookups,
  makeFixtures,
  type MediaServer,
  startHttp,
  startMediaServer
} from "./MediaTestServer.js"

let fixtures: Fixtures
let server: MediaServer
let assets: Awaited<ReturnType<typeof startHttp>>
/** A loopback server nothing may ever reach: redirects point at it. */
let trap: Awaited<ReturnType<typeof startHttp>>

beforeAll(async () => {
  fixtures = makeFixtures()
  trap = await startHttp((_url, response) => response.end("you should not be here"))
  assets = await startHttp((url, response) => {
    const files: Record<string, Buffer> = { "/photo.png": fixtures.png, "/clip.mp4": fixtures.mp4, "/notes.png": fixtures.text }
    const redirects: Record<string, string> = {
      "/to-loopback": `https://127.0.0.1:${trap.port}/photo.png`,
      "/to-loopback-name": `https://loopback.test:${trap.port}/photo.png`,
      "/to-photo": "/photo.png"
    }
    const file = files[url]
    if (redirects[url] !== undefined) response.writeHead(302, { location: redirects[url] }).end()
    else if (file === undefined) response.writeHead(404).end("not here")
    else response.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.length }).end(file)
  })
  server = await startMediaServer({ storage: "local", loopbackPorts: [assets.port] })
}, 30_000)

afterAll(async () => {
  await server?.close()
  await assets?.close()
  await trap?.close()
})

const storedFiles = () =>
  Fs.readdirSync(Path.join(server.mediaDir, "media", server.projects.one.id), { withFileTypes: true }).length

describe("POST /media (multipart file)", () => {
  it("takes a PNG, a JPEG, an MP4 and a PDF, with the type read from the bytes", async () => {
    const replies = await Promise.all([
      server.upload(server.tokens.writer, fixtures.png, { alt_text: "a red square" }, "photo.png"),
      server.upload(server.tokens.writer, fixtures.jpeg, {}, "misnamed.pdf"),
      server.upload(server.tokens.writer, fixtures.mp4, { thumbnail_timestamp_ms: "500" }, "clip.mp4"),
      server.upload(server.tokens.writer, fixtures.pdf, {}, "deck.pdf")
    ])
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200])
    const [png, jpeg, mp4, pdf] = await Promise.all(replies.map((reply) => reply.json()))
    expect([png.kind, jpeg.kind, mp4.kind, pdf.kind]).toEqual(["image", "image", "video", "document"])
    const row = (id: string) => server.data.media.get(id as never)!
    expect(row(png.id)).toMatchObject({ mime: "image/png", width: 64, height: 48, codec: "png", altText: "a red square", bytes: fixtures.png.length })
    expect(row(jpeg.id)).toMatchObject({ mime: "image/jpeg", width: 80, height: 60, codec: "mjpeg", filename: "misnamed.pdf" })
    expect(row(mp4.id)).toMatchObject({ mime: "video/mp4", width: 64, height: 48, codec: "h264", thumbnailTimestampMs: 500 })
    expect(row(mp4.id).durationSeconds).toBeCloseTo(1.5, 1)
    expect(row(pdf.id)).toMatchObject({ mime: "application/pdf", width: null, durationSeconds: null, codec: null })
    // The bytes are on disk under the media directory, byte for byte.
    expect(Fs.readFileSync(Path.join(server.mediaDir, row(png.id).storageKey))).toEqual(fixtures.png)
    expect(Fs.readdirSync(Path.join(server.mediaDir, ".staging"))).toEqual([])
  })

  it("400: an unsupported type, whatever its name and declared type say", async () => {
    const before = storedFiles()
    const reply = await server.upload(server.tokens.writer, fixtures.text, {}, "holiday.png")
    expect(reply.status).toBe(400)
    expect(await reply.json()).toEqual({
      error: "the file's type is not recognised; send an image (JPEG, PNG, GIF, WebP), a video (MP4, MOV) or a PDF",
      code: "media_unsupported"
    })
    expect(storedFiles()).toBe(before)
  })

  it("400: no file, url or ticket; both url and ticket; alt_text over 1000; a bad thumbnail", async () => {
    const json = (body: unknown) => server.call("/api/v1/media", { method: "POST", key: server.tokens.writer, json: body })
    const empty = await json({})
    expect([empty.status, (await empty.json()).error]).toEqual([400, "send a file (multipart), a url or a ticket"])
    const both = await json({ url: `${assets.origin}/photo.png`, ticket: "upl_x" })
    expect([both.status, (await both.json()).error]).toEqual([400, "send url or ticket, not both"])
    const alt = await server.upload(server.tokens.writer, fixtures.png, { alt_text: "x".repeat(1001) })
    expect(alt.status).toBe(400)
    expect((await alt.json()).violations[0].field).toBe("alt_text")
    const late = await server.upload(server.tokens.writer, fixtures.mp4, { thumbnail_timestamp_ms: "60000" })
    expect([late.status, (await late.json()).error]).toEqual([
      400,
      "thumbnail_timestamp_ms 60000 is past the end of the video (1500 ms)"
    ])
    const text = await server.call("/api/v1/media", {
      method: "POST",
      key: server.tokens.writer,
      headers: { "content-type": "image/png" },
      body: fixtures.png
    })
    expect([text.status, (await text.json()).code]).toEqual([415, "unsupported_media_type"])
    const form = new FormData()
    form.append("alt_text", "no file here")
    const noFile = await server.call("/api/v1/media", { method: "POST", key: server.tokens.writer, body: form })
    expect([noFile.status, (await noFile.json()).error]).toEqual([400, "send a file (multipart field file), a url or a ticket"])
  })

  it("403 without posts:write, before reading the file; 401 without a key", async () => {
    const reply = await server.upload(server.tokens.reader, fixtures.png)
    expect(reply.status).toBe(403)
    expect(await reply.json()).toEqual({ error: "this key lacks the posts:write scope", code: "missing_scope" })
    const anonymous = await server.call("/api/v1/media", { method: "POST", json: { url: "https://example.com/a.png" } })
    expect(anonymous.status).toBe(401)
  })
})

describe("people_tags", () => {
  it("are checked before the file is stored: 422 names the unknown handles; known ones are kept on the row", async () => {
    const before = storedFiles()
    const refused = await server.upload(server.tokens.writer, fixtures.png, { people_tags: ["@Alice", "ghost.user"] })
    expect(refused.status).toBe(422)
    expect(await refused.json()).toEqual({
      error: "instagram cannot confirm these handles: ghost.user; retry without them",
      code: "people_tags_unconfirmed",
      unknown: ["ghost.user"]
    })
    expect(storedFiles()).toBe(before)
    const kept = await server.upload(server.tokens.writer, fixtures.png, { people_tags: '["@Alice", "bob.b"]' })
    expect(kept.status).toBe(200)
    expect(server.data.media.get((await kept.json()).id)!.peopleTags).toEqual(["alice", "bob.b"])
  })

  it("400 for a malformed handle; 400 carrying the stored id for a video", async () => {
    const malformed = await server.upload(server.tokens.writer, fixtures.png, { people_tags: "not a handle!" })
    expect(malformed.status).toBe(400)
    expect((await malformed.json()).violations[0].field).toBe("people_tags[0]")
    const video = await server.upload(server.tokens.writer, fixtures.mp4, { people_tags: "alice" })
    expect(video.status).toBe(400)
    const body = await video.json()
    expect(body).toMatchObject({ code: "people_tags_need_image", id: expect.any(String) })
    expect(server.data.media.get(body.id)).toMatchObject({ kind: "video", peopleTags: [] })
  })

  it("409 when no account of the project can have handles checked", async () => {
    const reply = await server.upload(server.tokens.other, fixtures.png, { people_tags: "alice" })
    expect(reply.status).toBe(409)
    expect(await reply.json()).toEqual({
      error: "people_tags cannot be used: no active instagram account of this project is connected through a route that advertises can.people_tags",
      code: "people_tags_unavailable"
    })
  })
})

describe("POST /media (JSON url)", () => {
  const fromUrl = (url: string) => server.call("/api/v1/media", { method: "POST", key: server.tokens.writer, json: { url } })

  it("fetches a file through the outbound guard, following a redirect on the same host", async () => {
    const reply = await fromUrl(`${assets.origin}/to-photo`)
    expect(reply.status).toBe(200)
    const { id, kind } = await reply.json()
    expect(kind).toBe("image")
    expect(server.data.media.get(id)).toMatchObject({ mime: "image/png", filename: "photo.png" })
  })

  it("400 for an unfetchable or unsupported URL", async () => {
    const missing = await fromUrl(`${assets.origin}/gone.png`)
    expect([missing.status, await missing.json()]).toEqual([
      400,
      { error: `${assets.origin}/gone.png: 127.0.0.1:${assets.port} answered HTTP 404`, code: "media_unfetchable" }
    ])
    const text = await fromUrl(`${assets.origin}/notes.png`)
    expect([text.status, (await text.json()).code]).toEqual([400, "media_unsupported"])
  })

  it("refuses loopback, private, link-local, metadata and IPv4-carrying IPv6 destinations before connecting (400 saying why)", async () => {
    lookups.length = 0
    const port = trap.port
    const cases: Record<string, string> = {
      [`https://localhost:${port}/a.png`]: `localhost resolves to`,
      [`https://127.0.0.1:${port}/a.png`]: "127.0.0.1 is a loopback address",
      "https://10.0.0.1/a.png": "10.0.0.1 is a private address",
      "https://169.254.169.254/latest/meta-data/": "169.254.169.254 is the cloud metadata address",
      [`https://[::1]:${port}/a.png`]: "::1 is a loopback address",
      [`https://[::ffff:127.0.0.1]:${port}/a.png`]: "::ffff:7f00:1 is an IPv4-mapped address",
      "https://[::127.0.0.1]/a.png": "::7f00:1 is an IPv4-compatible address",
      [`https://[::127.0.0.1]:${port}/a.png`]: "::7f00:1 is an IPv4-compatible address",
      [`https://[64:ff9b::127.0.0.1]:${port}/a.png`]: "64:ff9b::7f00:1 is a NAT64 address",
      [`https://[2002:7f00:1::1]:${port}/a.png`]: "2002:7f00:1::1 is a 6to4 address",
      [`https://loopback.test:${port}/a.png`]: "loopback.test resolves to 127.0.0.1, a loopback address",
      [`${assets.origin}/to-loopback`]: `127.0.0.1 is a loopback address`,
      [`${assets.origin}/to-loopback-name`]: "loopback.test resolves to 127.0.0.1, a loopback address",
      [`http://loopback.test:${assets.port}/photo.png`]: "only https is allowed"
    }
    for (const [url, reason] of Object.entries(cases)) {
      const reply = await fromUrl(url)
      const body = await reply.json()
      expect([url, reply.status, body.code]).toEqual([url, 400, "media_unfetchable"])
      expect(body.error).toContain(reason)
    }
    // Names were looked up (and judged); the trap never saw a connection, literal or by name.
    expect([...new Set(lookups)].sort()).toEqual(["localhost", "loopback.test"])
    expect(trap.hits).toEqual([])
  })
})

describe("upload tickets on local storage", () => {
  const ticket = async (key = server.tokens.writer) => {
    const reply = await server.call("/api/v1/media/ticket", { method: "POST", key })
    return { status: reply.status, body: await reply.json() }
  }
  const redeem = (value: string, key = server.tokens.writer) =>
    server.call("/api/v1/media", { method: "POST", key, json: { ticket: value } })

  it("answers ticket, attach_url, max_bytes and expires_in_seconds (no form without a bucket); 403 without posts:write", async () => {
    const { body, status } = await ticket()
    expect(status).toBe(200)
    expect(body).toEqual({
      ticket: expect.stringMatching(/^upl_[0-9a-f]{32}$/),
      attach_url: `http://herald.test/api/v1/media/attach/${body.ticket}`,
      max_bytes: 104857600,
      expires_in_seconds: 600
    })
    expect((await ticket(server.tokens.reader)).status).toBe(403)
  })

  it("a browser multipart POST to attach_url answers media_id; the ticket is then claimed (404)", async () => {
    const { body } = await ticket()
    expect((await redeem(body.ticket)).status).toBe(404) // nothing uploaded yet
    const form = new FormData()
    form.append("alt_text", "from the browser")
    form.append("file", new Blob([fixtures.jpeg]), "cat.jpg")
    const attached = await fetch(`${server.origin}${new URL(body.attach_url).pathname}`, { method: "POST", body: form })
    expect(attached.status).toBe(200)
    expect(attached.headers.get("access-control-allow-origin")).toBe("*")
    const { media_id } = await attached.json() as Json
    expect(server.data.media.get(media_id)).toMatchObject({ kind: "image", mime: "image/jpeg", altText: "from the browser" })
    const again = await redeem(body.ticket)
    expect([again.status, await again.json()]).toEqual([404, { error: "this upload ticket was already claimed", code: "ticket_claimed" }])
    const reattach = await fetch(`${server.origin}${new URL(body.attach_url).pathname}`, { method: "POST", body: form })
    expect(reattach.status).toBe(404)
  })

  it("a refused file at attach_url leaves the ticket open: the next file on the same slot is kept and claims it", async () => {
    const { body } = await ticket()
    const attach = (file: Buffer, name: string) => {
      const form = new FormData()
      form.append("file", new Blob([file]), name)
      return fetch(`${server.origin}${new URL(body.attach_url).pathname}`, { method: "POST", body: form })
    }
    const refused = await attach(fixtures.text, "notes.png")
    expect([refused.status, (await refused.json() as Json).code]).toEqual([400, "media_unsupported"])
    const kept = await attach(fixtures.png, "photo.png")
    expect(kept.status).toBe(200)
    const { media_id } = await kept.json() as Json
    expect(server.data.media.get(media_id)).toMatchObject({ kind: "image", mime: "image/png" })
    const again = await redeem(body.ticket)
    expect([again.status, (await again.json()).code]).toEqual([404, "ticket_claimed"])
  })

  it("two files posted at once to one attach_url: one media item, the other 404 ticket_claimed", async () => {
    const { body } = await ticket()
    const before = server.data.media.size
    const attach = () => {
      const form = new FormData()
      form.append("file", new Blob([fixtures.png]), "photo.png")
      return fetch(`${server.origin}${new URL(body.attach_url).pathname}`, { method: "POST", body: form })
    }
    const replies = await Promise.all([attach(), attach()])
    const outcomes = await Promise.all(replies.map(async (reply) => [reply.status, (await reply.json() as Json).code ?? "kept"]))
    expect(outcomes.sort()).toEqual([[200, "kept"], [404, "ticket_claimed"]])
    expect(server.data.media.size).toBe(before + 1)
  })

  it("404 for an unknown ticket or one of another project; 400 for an expired one", async () => {
    const unknown = await redeem("upl_00000000000000000000000000000000")
    expect([unknown.status, (await unknown.json()).code]).toEqual([404, "ticket_not_found"])
    const { body } = await ticket()
    expect((await redeem(body.ticket, server.tokens.other)).status).toBe(404)
    const now = DateTime.unsafeNow()
    // A ticket of the issued shape: one of any other shape is never looked up.
    const expiredTicket = "upl_e0000000000000000000000000000001"
    const expired = new UploadTicket({
      ticket: expiredTicket,
      projectId: server.projects.one.id,
      keyId: ApiKeyId.make("30000000-0000-4000-8000-000000000001"),
      maxBytes: 100,
      createdAt: DateTime.subtract(now, { minutes: 11 }),
      expiresAt: DateTime.subtract(now, { minutes: 1 }),
      claimedAt: null
    })
    await server.run(Effect.flatMap(UploadTickets, (tickets) => tickets.create(expired)))
    const reply = await redeem(expiredTicket)
    expect(reply.status).toBe(400)
    expect((await reply.json()).code).toBe("ticket_expired")
    const form = new FormData()
    form.append("file", new Blob([fixtures.png]), "a.png")
    expect((await fetch(`${server.origin}/api/v1/media/attach/${expiredTicket}`, { method: "POST", body: form })).status).toBe(400)
  })
})

describe("no media storage configured", () => {
  it("503 for tickets and uploads", async () => {
    const bare = await startMediaServer({ storage: "none" })
    try {
      const issued = await bare.call("/api/v1/media/ticket", { method: "POST", key: bare.tokens.writer })
      expect([issued.status, await issued.json()]).toEqual([503, {
        error: "media storage is not configured on this instance (neither a local directory nor a bucket)",
        code: "media_storage_unavailable"
      }])
      expect((await bare.upload(bare.tokens.writer, fixtures.png)).status).toBe(503)
    } finally {
      await bare.close()
    }
  })
})

describe("hostile text and depth on POST /media", () => {
  it("a NUL in alt_text (form or JSON) or in a ticket: 400 naming the field, nothing stored", async () => {
    const before = storedFiles()
    const form = await server.upload(server.tokens.writer, fixtures.png, { alt_text: "red\u0000square" })
    expect(form.status).toBe(400)
    expect((await form.json()).violations).toEqual([{ field: "alt_text", account: null, message: "contains a NUL character (U+0000)" }])
    const json = await server.call("/api/v1/media", { method: "POST", key: server.tokens.writer, json: { ticket: "upl_\ud800" } })
    expect(json.status).toBe(400)
    expect((await json.json()).violations).toEqual([{ field: "ticket", account: null, message: "contains an unpaired surrogate (U+D800)" }])
    expect(storedFiles()).toBe(before)
  })

  it("a 1,001-character alt_text is named by its length, not repeated back; JSON past 64 levels is 400 body_too_deep", async () => {
    const alt = await server.upload(server.tokens.writer, fixtures.png, { alt_text: "x".repeat(1001) })
    expect(alt.status).toBe(400)
    const text = await alt.text()
    expect(text).not.toContain("x".repeat(100))
    expect(JSON.parse(text).violations).toEqual([{ field: "alt_text", account: null, message: expect.stringMatching(/, actual a string of 1001 characters$/) }])
    const deep = await server.call("/api/v1/media", {
      method: "POST",
      key: server.tokens.writer,
      headers: { "content-type": "application/json" },
      body: `{"url":"https://example.com/a.png","alt_text":${"[".repeat(30_000)}${"]".repeat(30_000)}}`
    })
    expect([deep.status, (await deep.json()).code]).toEqual([400, "body_too_deep"])
  })
})
