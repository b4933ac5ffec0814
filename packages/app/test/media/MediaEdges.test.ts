import { afterAll, beforeAll, expect, it } from "vitest"
import { bytesOf, expectRefusal, rawRequest } from "../RawHttp.js"
import { json, onEachDatabase, type TestHerald } from "../TestHerald.js"
import { type Fixtures, makeFixtures } from "./MediaTestServer.js"

/**
 * The media routes against input no browser sends, over plain sockets against the reference
 * server (local media storage): a multipart body without a boundary, attach URLs whose path
 * cannot name a ticket. And the upload ticket's claim on each database: a refused file leaves it
 * open, two files racing to it make one media item.
 */
onEachDatabase("media edges", (start) => {
  let herald: TestHerald
  let fixtures: Fixtures
  beforeAll(async () => {
    fixtures = makeFixtures()
    herald = await start()
  }, 120_000)
  const newAttachPath = async () =>
    new URL((await json(await herald.call("/api/v1/media/ticket", { method: "POST", token: herald.credentials.human_key }))).attach_url).pathname
  const attach = (path: string, file: Uint8Array) => {
    const form = new FormData()
    form.append("file", new Blob([file]), "upload.bin")
    return fetch(`${herald.origin}${path}`, { method: "POST", body: form })
  }
  afterAll(() => herald?.close())

  it("multipart/form-data without a boundary: 400 malformed_body on /media and on the attach URL, 4 MB of it sent in full", async () => {
    const ticket = await json(await herald.call("/api/v1/media/ticket", { method: "POST", token: herald.credentials.human_key }))
    const attachPath = new URL(ticket.attach_url).pathname
    const heads = [
      `POST /api/v1/media HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer ${herald.credentials.human_key}`,
      `POST ${attachPath} HTTP/1.1\r\nHost: herald`
    ]
    for (const head of heads) {
      for (const type of ["multipart/form-data", "multipart/form-data; charset=utf-8", "multipart/form-data; boundary=\"unclosed"]) {
        for (const size of [3, 4 * 1000 * 1000]) {
          const reply = await rawRequest(herald.origin, {
            head: `${head}\r\nContent-Type: ${type}\r\nContent-Length: ${size}`,
            body: bytesOf(size),
            readAfterSending: true
          })
          expectRefusal(reply, 400, "malformed_body", `${head.split(" ")[1]}, ${type}, ${size} bytes`)
        }
      }
    }
    // The refused bodies claimed nothing: the ticket still takes a file (refused here for its type).
    const form = new FormData()
    form.append("file", new Blob([new Uint8Array(8)]), "zeros.bin")
    const attached = await fetch(`${herald.origin}${attachPath}`, { method: "POST", body: form })
    expect([attached.status, (await json(attached)).code]).toEqual([400, "media_unsupported"])
  })

  it("a file refused at attach_url leaves the ticket open; the next one is kept and claims it", async () => {
    const path = await newAttachPath()
    const refused = await attach(path, fixtures.text)
    expect([refused.status, (await json(refused)).code]).toEqual([400, "media_unsupported"])
    const kept = await attach(path, fixtures.png)
    expect(kept.status).toBe(200)
    const media = await json(await herald.call(`/api/v1/media/${(await json(kept)).media_id}`, { token: herald.credentials.human_key }))
    expect(media).toMatchObject({ kind: "image" })
    const again = await attach(path, fixtures.png)
    expect([again.status, (await json(again)).code]).toEqual([404, "ticket_claimed"])
  })

  it("two files posted at once to one attach_url: one is kept, the other 404 ticket_claimed", async () => {
    const path = await newAttachPath()
    const replies = await Promise.all([attach(path, fixtures.png), attach(path, fixtures.jpeg)])
    const outcomes = await Promise.all(replies.map(async (reply) => [reply.status, (await json(reply)).code ?? "kept"]))
    expect(outcomes.sort()).toEqual([[200, "kept"], [404, "ticket_claimed"]])
  })

  it("an attach URL whose path cannot name a ticket: a 4xx { error, code }, never a 500", async () => {
    for (const ticket of ["%00", "upl_%00", "%ZZ", "a".repeat(10_000), "..%2F", "..%2F..%2Fposts", "%F0%9F%92%A9", "%ED%A0%80"]) {
      const reply = await rawRequest(herald.origin, { head: `POST /api/v1/media/attach/${ticket} HTTP/1.1\r\nHost: herald\r\nContent-Length: 0` })
      const label = ticket.slice(0, 20)
      expect(reply.status, label).toBeGreaterThanOrEqual(400)
      expect(reply.status, label).toBeLessThan(500)
      expect(reply.json, label).toMatchObject({ error: expect.any(String), code: expect.any(String) })
    }
  })
})
