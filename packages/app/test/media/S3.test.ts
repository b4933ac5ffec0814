import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3"
import type { BucketConfig } from "@herald/media"
import { Redacted } from "effect"
import S3rver from "s3rver"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Fixtures, type Json, makeFixtures, type MediaServer, startMediaServer, tempDir } from "./MediaTestServer.js"

// The SDK's notice that its 2027 releases will need Node 22 (printed once per process): known,
// recorded in docs/media.md, and not a test outcome.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true"

let fixtures: Fixtures
let s3: S3rver
let bucket: BucketConfig
let client: S3Client
let server: MediaServer

beforeAll(async () => {
  fixtures = makeFixtures()
  s3 = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: tempDir("herald-s3rver-"),
    configureBuckets: [{ name: "herald-media" }]
  })
  const { port } = await s3.run()
  bucket = {
    bucket: "herald-media",
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: Redacted.make("S3RVER") }
  }
  client = new S3Client({
    region: "us-east-1",
    endpoint: bucket.endpoint!,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }
  })
  server = await startMediaServer({ storage: { bucket } })
}, 30_000)

afterAll(async () => {
  await server?.close()
  client?.destroy()
  await s3?.close()
})

const issueTicket = async () => {
  const reply = await server.call("/api/v1/media/ticket", { method: "POST", key: server.tokens.writer })
  expect(reply.status).toBe(200)
  return reply.json()
}

/** The presigned form POST a browser would send: every field in order, the file last. */
const postForm = (ticket: { url: string; fields: Record<string, string> }, file: Uint8Array) => {
  const form = new FormData()
  for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value)
  form.append("file", new Blob([file]), "upload.bin")
  return fetch(ticket.url, { method: "POST", body: form })
}

const redeem = (ticket: string) => server.call("/api/v1/media", { method: "POST", key: server.tokens.writer, json: { ticket } })

const objectBytes = async (key: string) => {
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: "herald-media", Key: key }))
    return Buffer.from(await object.Body!.transformToByteArray())
  } catch (error) {
    if ((error as { name?: string }).name === "NoSuchKey") return null
    throw error
  }
}

describe("upload tickets on an S3-compatible bucket (s3rver on loopback)", () => {
  it("carries a presigned form whose policy pins the key, caps the size and lapses with the ticket", async () => {
    const issuedAt = Date.now()
    const ticket = await issueTicket()
    expect(ticket).toMatchObject({
      attach_url: `http://herald.test/api/v1/media/attach/${ticket.ticket}`,
      max_bytes: 104857600,
      expires_in_seconds: 600,
      url: `${bucket.endpoint}/herald-media`
    })
    expect(ticket.fields.key).toBe(`uploads/${ticket.ticket}`)
    const policy = JSON.parse(Buffer.from(ticket.fields.Policy, "base64").toString("utf8"))
    expect(policy.conditions).toEqual(expect.arrayContaining([
      { bucket: "herald-media" },
      { key: `uploads/${ticket.ticket}` },
      ["content-length-range", 1, 104857600],
      { "X-Amz-Algorithm": "AWS4-HMAC-SHA256" }
    ]))
    const lifetime = (Date.parse(policy.expiration) - issuedAt) / 1000
    expect(lifetime).toBeGreaterThan(590)
    expect(lifetime).toBeLessThanOrEqual(601)
    // The curl command sends the same fields in the same order, the file last.
    const fieldOrder = [...ticket.curl.matchAll(/-F '([^=]+)=/g)].map((match: RegExpMatchArray) => match[1])
    expect(fieldOrder).toEqual([...Object.keys(ticket.fields), "file"])
    expect(ticket.curl.startsWith(`curl -X POST '${ticket.url}'`)).toBe(true)
  })

  it("redeems the uploaded object: type from the bytes, kept in the bucket, the upload deleted, once", async () => {
    const ticket = await issueTicket()
    const empty = await redeem(ticket.ticket)
    expect([empty.status, (await empty.json()).code]).toEqual([404, "ticket_empty"])
    const posted = await postForm(ticket, fixtures.mp4)
    expect(posted.status).toBeLessThan(300)
    expect(await objectBytes(`uploads/${ticket.ticket}`)).toEqual(fixtures.mp4)
    const reply = await redeem(ticket.ticket)
    expect(reply.status).toBe(200)
    const { id, kind } = await reply.json()
    expect(kind).toBe("video")
    const row = server.data.media.get(id)!
    expect(row).toMatchObject({ mime: "video/mp4", storageKey: `media/${server.projects.one.id}/${id}` })
    expect(row.durationSeconds).toBeCloseTo(1.5, 1)
    expect(await objectBytes(row.storageKey)).toEqual(fixtures.mp4)
    expect(await objectBytes(`uploads/${ticket.ticket}`)).toBeNull()
    const again = await redeem(ticket.ticket)
    expect([again.status, (await again.json()).code]).toEqual([404, "ticket_claimed"])
  })

  it("refuses an unsupported upload with 400 and still deletes it; the ticket stays open for another upload to the slot", async () => {
    const ticket = await issueTicket()
    expect((await postForm(ticket, fixtures.text)).status).toBeLessThan(300)
    const reply = await redeem(ticket.ticket)
    expect([reply.status, (await reply.json()).code]).toEqual([400, "media_unsupported"])
    expect(await objectBytes(`uploads/${ticket.ticket}`)).toBeNull()
    const emptied = await redeem(ticket.ticket)
    expect([emptied.status, (await emptied.json()).code]).toEqual([404, "ticket_empty"])
    expect((await postForm(ticket, fixtures.png)).status).toBeLessThan(300)
    const kept = await redeem(ticket.ticket)
    expect(kept.status).toBe(200)
    expect((await kept.json()).kind).toBe("image")
    const again = await redeem(ticket.ticket)
    expect([again.status, (await again.json()).code]).toEqual([404, "ticket_claimed"])
  })

  it("stores multipart uploads and the attach URL in the bucket too", async () => {
    const direct = await server.upload(server.tokens.writer, fixtures.pdf, {}, "deck.pdf")
    expect(direct.status).toBe(200)
    const { id } = await direct.json()
    expect(await objectBytes(server.data.media.get(id)!.storageKey)).toEqual(fixtures.pdf)
    const ticket = await issueTicket()
    const form = new FormData()
    form.append("file", new Blob([fixtures.png]), "photo.png")
    const attached = await fetch(`${server.origin}/api/v1/media/attach/${ticket.ticket}`, { method: "POST", body: form })
    expect(attached.status).toBe(200)
    const { media_id } = await attached.json() as Json
    expect(await objectBytes(server.data.media.get(media_id)!.storageKey)).toEqual(fixtures.png)
  })
})
