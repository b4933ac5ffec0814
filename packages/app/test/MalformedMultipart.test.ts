import { setTimeout as sleep } from "node:timers/promises"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bytesOf, expectRefusal, type RawReply, rawRequest } from "./RawHttp.js"
import { json, onEachDatabase, type TestHerald } from "./TestHerald.js"

/**
 * Multipart bodies whose framing breaks, over plain sockets against the reference server, on the
 * three routes that read multipart/form-data: each answers 400 malformed_body at once, and the
 * server goes on answering others meanwhile (a body cut short before its closing boundary used
 * to leave the parser spinning, and one such request froze the server).
 */
const boundary = "herald-multipart-edge"
const csv = "caption,accounts\r\nFrom a multipart form,x:herald_demo"
/** A small PDF: what the media routes store without a probe of its contents. */
const pdf = "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
  "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
const filePart = (content: string, line = `--${boundary}`) =>
  `${line}\r\nContent-Disposition: form-data; name="file"; filename="upload.csv"\r\nContent-Type: text/csv\r\n\r\n${content}`

/** Each malformed body, with what the refusal says. */
const shapes: ReadonlyArray<{ readonly name: string; readonly body: () => Iterable<Uint8Array>; readonly says: RegExp }> = [
  { name: "its closing boundary line missing", body: () => [Buffer.from(`${filePart(csv)}\r\n`)], says: /closing boundary line/ },
  { name: "cut right after a boundary line", body: () => [Buffer.from(`${filePart(csv)}\r\n--${boundary}\r\n`)], says: /closing boundary line/ },
  {
    name: "cut inside a part's headers",
    body: () => [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.csv"\r\n`)],
    says: /closing boundary line/
  },
  {
    name: "a part's headers without their empty line, then the close",
    body: () => [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.csv"\r\n--${boundary}--\r\n`)],
    says: /headers do not end with an empty line/
  },
  { name: "a part with no headers", body: () => [Buffer.from(`--${boundary}\r\n\r\n${csv}\r\n--${boundary}--\r\n`)], says: /could not be read/ },
  {
    name: "the boundary only as a prefix of its lines",
    body: () => [Buffer.from(`${filePart(csv, `--${boundary.slice(0, 10)}`)}\r\n--${boundary.slice(0, 10)}--\r\n`)],
    says: /no boundary line/
  },
  {
    name: "a boundary line twice in a row",
    body: () => [Buffer.from(`--${boundary}\r\n${filePart(csv)}\r\n--${boundary}--\r\n`)],
    says: /headers do not end with an empty line/
  },
  {
    name: "a nested form closed, the outer one not",
    body: () => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="nested"\r\nContent-Type: multipart/mixed; boundary=inner\r\n\r\n` +
          `--inner\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--inner--\r\n`
      )
    ],
    says: /closing boundary line/
  },
  {
    name: "LF line ends",
    body: () => [Buffer.from(`${filePart(csv)}\r\n--${boundary}--\r\n`.replaceAll("\r\n", "\n"))],
    says: /does not end with CRLF/
  },
  {
    name: "a filename* that is not percent-encoded UTF-8",
    body: () => [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=utf-8''%E0%A4%A\r\n\r\n${csv}\r\n--${boundary}--\r\n`)],
    says: /filename\*/
  },
  { name: "4 MB without a boundary line", body: () => bytesOf(4_000_000), says: /no boundary line/ },
  {
    name: "a 4 MB file part that is never closed",
    body: () => {
      const head = Buffer.from(filePart(""))
      return [head, ...bytesOf(4_000_000 - head.length)]
    },
    says: /closing boundary line/
  }
]

/** Boundary parameters a multipart body cannot be read by, each with a body framed by it. */
const contentTypes: ReadonlyArray<{ readonly name: string; readonly type: string; readonly body: string; readonly says: RegExp }> = [
  {
    name: "a boundary of 71 characters",
    type: `multipart/form-data; boundary=${"b".repeat(71)}`,
    body: `${filePart(csv, `--${"b".repeat(71)}`)}\r\n--${"b".repeat(71)}--\r\n`,
    says: /1 to 70/
  },
  {
    name: "two boundary parameters",
    type: `multipart/form-data; boundary=${boundary}; boundary=other`,
    body: `${filePart(csv)}\r\n--${boundary}--\r\n`,
    says: /more than one boundary/
  },
  { name: "parameters that do not parse", type: `multipart/form-data; boundary="${boundary}`, body: `${filePart(csv)}\r\n--${boundary}--\r\n`, says: /do not parse/ }
]

/** How long a refusal may take on a loaded machine, and GET /health beside it. */
const replyWithinMillis = 5_000
const healthWithinMillis = 1_000

const within = <A>(promise: Promise<A>, millis: number, what: string) =>
  Promise.race([promise, sleep(millis).then(() => Promise.reject(new Error(`${what}: no reply within ${millis} ms`)))])

onEachDatabase("malformed multipart bodies", (start) => {
  let herald: TestHerald
  let attachPath: string
  const attachPathOfNewTicket = async () => {
    const ticket = await json(await herald.call("/api/v1/media/ticket", { method: "POST", token: herald.credentials.human_key }))
    return new URL(ticket.attach_url).pathname
  }
  beforeAll(async () => {
    herald = await start()
    attachPath = await attachPathOfNewTicket()
  }, 120_000)
  afterAll(() => herald?.close())

  const routes = () => [
    { name: "POST /api/v1/posts/bulk", head: `POST /api/v1/posts/bulk HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer ${herald.credentials.human_key}` },
    { name: "POST /api/v1/media", head: `POST /api/v1/media HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer ${herald.credentials.human_key}` },
    { name: "the attach URL", head: `POST ${attachPath} HTTP/1.1\r\nHost: herald` }
  ]

  /**
   * Sends a body, and while the server reads it, GET /health: the reply to the body within
   * replyWithinMillis, and how long /health took.
   */
  const sendBeside = async (head: string, type: string, body: Iterable<Uint8Array>) => {
    const chunks = [...body]
    const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    const reply = rawRequest(herald.origin, { head: `${head}\r\nContent-Type: ${type}\r\nContent-Length: ${length}`, body: chunks, readAfterSending: true })
    // A moment for the body to reach the server over loopback (a parser left spinning on it
    // would also never send the reply awaited below).
    await sleep(10)
    const started = performance.now()
    const health = await fetch(`${herald.origin}/health`, { signal: AbortSignal.timeout(replyWithinMillis) })
    const healthMillis = performance.now() - started
    return { reply: await within(reply, replyWithinMillis, "the malformed body"), health: health.status, healthMillis }
  }

  const expectMalformed = (sent: { reply: RawReply; health: number; healthMillis: number }, says: RegExp, label: string) => {
    expectRefusal(sent.reply, 400, "malformed_body", label)
    expect(sent.reply.json.error, label).toMatch(says)
    expect(sent.health, label).toBe(200)
    expect(sent.healthMillis, `${label}: GET /health beside it`).toBeLessThan(healthWithinMillis)
  }

  describe("a body whose framing breaks: 400 malformed_body at once, GET /health answered meanwhile", () => {
    for (const route of ["POST /api/v1/posts/bulk", "POST /api/v1/media", "the attach URL"]) {
      it(route, async () => {
        const { head } = routes().find((candidate) => candidate.name === route)!
        for (const shape of shapes) {
          const sent = await sendBeside(head, `multipart/form-data; boundary=${boundary}`, shape.body())
          expectMalformed(sent, shape.says, `${route}, ${shape.name}`)
        }
      }, 120_000)
    }
  })

  it("a Content-Type whose boundary cannot be read: 400 malformed_body on each route", async () => {
    for (const route of routes()) {
      for (const contentType of contentTypes) {
        const sent = await sendBeside(route.head, contentType.type, [Buffer.from(contentType.body)])
        expectMalformed(sent, contentType.says, `${route.name}, ${contentType.name}`)
      }
    }
  }, 120_000)

  it("a well-framed form over the media limits: 400 for 17 parts or a field over 64 KiB", async () => {
    const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
    const bodies = [
      { body: `${Array.from({ length: 17 }, (_, n) => field(`field${n}`, "x")).join("")}--${boundary}--\r\n`, says: "the form has too many parts" },
      { body: `${field("alt_text", "a".repeat(64 * 1024 + 1))}--${boundary}--\r\n`, says: "a form field is too long" }
    ]
    for (const { body, says } of bodies) {
      const sent = await sendBeside(routes()[1]!.head, `multipart/form-data; boundary=${boundary}`, [Buffer.from(body)])
      expect([sent.reply.status, sent.reply.json]).toEqual([400, { error: says, code: "invalid_request" }])
    }
  })

  it("well-framed forms still upload: a preamble, a 70-character quoted boundary, an epilogue that looks like a part", async () => {
    const long = "Herald's (long) boundary: +_,-./:=? ".padEnd(70, "x")
    const type = `multipart/form-data; boundary="${long}"`
    const epilogue = `\r\n--${long}\r\nContent-Disposition: form-data; name="file"; filename="second.csv"\r\n\r\nnot read\r\n--${long}--\r\n`
    const form = (content: string, filename: string) =>
      Buffer.from(
        `a preamble, ignored\r\n--${long}\r\nContent-Disposition: form-data; name="alt_text"\r\n\r\nA page\r\n` +
          `--${long}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n${content}\r\n--${long}--${epilogue}`
      )
    const [bulk, media] = routes()
    const created = await sendBeside(bulk!.head, type, [form(csv, "posts.csv")])
    expect([created.reply.status, created.reply.json.created, created.reply.json.failed]).toEqual([200, 1, 0])
    const uploaded = await sendBeside(media!.head, type, [form(pdf, "page.pdf")])
    expect([uploaded.reply.status, uploaded.reply.json.kind]).toEqual([200, "document"])
    const attached = await sendBeside(`POST ${await attachPathOfNewTicket()} HTTP/1.1\r\nHost: herald`, type, [form(pdf, "page.pdf")])
    expect(attached.reply.status).toBe(200)
    expect(attached.reply.json.media_id).toEqual(expect.any(String))
    // The refused bodies claimed nothing: the first ticket still takes a file.
    const again = await sendBeside(routes()[2]!.head, type, [form(pdf, "page.pdf")])
    expect(again.reply.status).toBe(200)
  })
})
