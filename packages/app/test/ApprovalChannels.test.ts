import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Duration } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SMTPServer } from "smtp-server"
import { makeFixtures } from "./media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "./TestHerald.js"

/**
 * Approval channels on the reference server with its workers: an in-process SMTP server takes the
 * reviewer's mail (nodemailer over SMTP), a loopback receiver takes the chat payload (through the
 * outbound guard), and the links they carry decide the post on the existing approval page.
 */
const mails: Array<{ readonly to: ReadonlyArray<string>; readonly raw: string }> = []
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onData: (stream, session, callback) => {
    const parts: Array<Buffer> = []
    stream.on("data", (part: Buffer) => parts.push(part))
    stream.on("end", () => {
      mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(parts).toString("utf8") })
      callback()
    })
  }
})

const chats: Array<Record<string, any>> = [] // eslint-disable-line @typescript-eslint/no-explicit-any
const chat: Server = createServer((req, res) => {
  const parts: Array<Buffer> = []
  req.on("data", (part: Buffer) => parts.push(part))
  req.on("end", () => {
    chats.push(JSON.parse(Buffer.concat(parts).toString("utf8")))
    res.writeHead(200).end("ok")
  })
})

const portOf = (server: { address: () => unknown }) => (server.address() as AddressInfo).port

let herald: TestHerald
let chatPort = 0
const fixtures = makeFixtures()

beforeAll(async () => {
  await new Promise<void>((done) => smtp.listen(0, "127.0.0.1", () => done()))
  await new Promise<void>((done) => chat.listen(0, "127.0.0.1", () => done()))
  chatPort = portOf(chat)
  process.env.HERALD_SMTP_URL = `smtp://127.0.0.1:${portOf(smtp.server)}`
  process.env.HERALD_SMTP_FROM = "Herald <herald@example.test>"
  // Each hold is announced within a fraction of a second, not at the notifier's next 5-second pass.
  herald = await startHerald({ outboundAllowLoopback: true, approvalPollInterval: Duration.millis(100) })
}, 120_000)
afterAll(async () => {
  await herald?.close()
  chat.close()
  await new Promise<void>((done) => smtp.close(() => done()))
})

const admin = (path: string, init: RequestInit & { readonly json?: unknown } = {}) =>
  herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, { ...init, token: herald.credentials.admin_token })

const until = async <A>(what: string, find: () => A | undefined, timeoutMs = 20_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The mail's text as sent (quoted-printable undone). */
const mailText = (raw: string) =>
  raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

const pathOf = (url: string) => new URL(url).pathname

const decide = (path: string, decision: string) =>
  herald.call(path, { method: "POST", body: new URLSearchParams({ decision }), headers: { "content-type": "application/x-www-form-urlencoded" } })

const hold = async (caption: string, mediaIds: ReadonlyArray<string> = []) => {
  const reply = await herald.call("/api/v1/posts", {
    method: "POST",
    token: herald.credentials.agent_key,
    json: { caption, social_accounts: ["x:herald_demo"], ...(mediaIds.length === 0 ? {} : { media_ids: mediaIds }) }
  })
  expect(reply.status).toBe(201)
  return (await json(reply)).id as string
}

describe("approval channels", () => {
  it("refuses what cannot be a channel, naming the field, and never shows a chat URL again", async () => {
    const badAddress = await admin("/approval-channels", { method: "POST", json: { kind: "email", address: "not an address" } })
    expect(badAddress.status).toBe(400)
    expect(JSON.stringify(await json(badAddress))).toContain("address")
    const privateUrl = await admin("/approval-channels", { method: "POST", json: { kind: "chat", url: "https://10.0.0.1/hook", label: "#x" } })
    expect(privateUrl.status).toBe(400)
    expect(await json(privateUrl)).toMatchObject({ code: "chat_url_refused", violations: [{ field: "url" }] })
    const unknown = await admin("/approval-channels/00000000-0000-4000-8000-000000000009", { method: "DELETE" })
    expect(await json(unknown)).toMatchObject({ code: "approval_channel_not_found" })
  })

  it("a held post goes to each channel with its picture and its own link; the first decision is recorded with its channel", async () => {
    const email = await admin("/approval-channels", { method: "POST", json: { kind: "email", address: "dana@example.com" } })
    expect(email.status).toBe(201)
    const secretUrl = `http://127.0.0.1:${chatPort}/services/T000/B000/sekrit`
    const chatChannel = await admin("/approval-channels", { method: "POST", json: { kind: "chat", url: secretUrl, label: "#approvals" } })
    expect(await json(chatChannel)).toMatchObject({ kind: "chat", recipient: "#approvals" })
    const listed = await (await admin("/approval-channels")).text()
    expect(listed).not.toContain("sekrit")

    const form = new FormData()
    form.append("file", new Blob([fixtures.png], { type: "image/png" }), "launch.png")
    const media = await json(await herald.call("/api/v1/media", { method: "POST", token: herald.credentials.agent_key, body: form }))
    const postId = await hold("Launch day, with a picture", [media.id])

    const mail = await until("the reviewer's mail", () => mails.find((m) => m.raw.includes(postId) || mailText(m.raw).includes("Launch day")))
    expect(mail.to).toEqual(["dana@example.com"])
    const text = mailText(mail.raw)
    expect(text).toContain("Subject: Demo: a post is waiting for your approval")
    expect(text).toContain("Launch day, with a picture")
    expect(text).toMatch(/Content-Type: image\/png/)
    const mailLink = text.match(/Approve or reject: (\S+)/)![1]!

    const message = await until("the chat message", () => chats.find((c) => JSON.stringify(c).includes("Launch day")))
    const blocks = message.blocks as ReadonlyArray<Record<string, any>> // eslint-disable-line @typescript-eslint/no-explicit-any
    const chatLink = blocks.find((block) => block.type === "actions")!.elements[0].url as string
    const picture = blocks.find((block) => block.type === "image")!.image_url as string
    expect(pathOf(chatLink)).not.toBe(pathOf(mailLink))
    const served = await herald.call(pathOf(picture))
    expect(served.headers.get("content-type")).toBe("image/png")
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(fixtures.png))).toBe(true)

    // The link opens the page (a GET decides nothing); the POST decides.
    expect(await (await herald.call(pathOf(mailLink))).text()).toContain("value=\"approve\"")
    const results = () => herald.call(`/api/v1/post-results?post_id=${postId}`, { token: herald.credentials.human_key }).then(json)
    expect((await results()).post_status).toBe("pending_approval")
    expect((await decide(pathOf(mailLink), "approve")).status).toBe(200)
    const receipt = await results()
    expect(receipt.provenance.decided_by).toMatchObject({
      outcome: "approved",
      via: "approval_link",
      channel: { kind: "email", recipient: "dana@example.com" }
    })
    const late = await decide(pathOf(chatLink), "reject")
    expect(late.status).toBe(409)
    expect(await late.text()).toContain("This post was approved")
  }, 60_000)
})

describe("a post held again under the same id", () => {
  it("is announced again with new links; the first hold's links answer as outdated", async () => {
    // The channels of the test above are still there: mail to dana@example.com and the chat.
    const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString()
    const created = await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.agent_key,
      json: { caption: "Held twice, on purpose", social_accounts: ["x:herald_demo"], scheduled_at: tomorrow }
    })
    const postId = (await json(created)).id as string
    const mailsOf = () => mails.filter((m) => mailText(m.raw).includes("Held twice"))
    const linkOf = (raw: string) => pathOf(mailText(raw).match(/Approve or reject: (\S+)/)![1]!)
    const first = linkOf((await until("the first hold's mail", () => mailsOf()[0])).raw)
    await until("the first hold's chat message", () => chats.find((c) => JSON.stringify(c).includes("Held twice")))

    const approved = await herald.call(`/api/v1/posts/${postId}/approve`, {
      method: "POST",
      token: herald.credentials.human_key,
      json: { decision: "approve" }
    })
    expect((await json(approved)).status).toBe("scheduled")
    // DELETE of a scheduled agent post in copilot mode unschedules it back to a person.
    const unscheduled = await herald.call(`/api/v1/posts/${postId}`, { method: "DELETE", token: herald.credentials.human_key })
    expect(await json(unscheduled)).toMatchObject({ unscheduled: true, status: "pending_approval" })

    const second = linkOf((await until("the second hold's mail", () => mailsOf()[1])).raw)
    await until("the second hold's chat message", () => {
      const sent = chats.filter((c) => JSON.stringify(c).includes("Held twice"))
      return sent.length >= 2 ? sent : undefined
    })
    expect(second).not.toBe(first)
    const outdated = await decide(first, "approve")
    expect(outdated.status).toBe(409)
    expect(await outdated.text()).toContain("earlier version of the post")
    expect((await decide(second, "reject")).status).toBe(200)
    // One message per hold and channel: no third mail comes in the notifier's next few passes.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(mailsOf()).toHaveLength(2)
  }, 60_000)

  it("the notifier reports its heartbeat to GET /health and the Prometheus page", async () => {
    const beat = await (async () => {
      const deadline = Date.now() + 20_000
      for (;;) {
        const body = await json(await herald.call("/health"))
        const found = (body.workers as ReadonlyArray<{ kind: string; stale: boolean }>).find((w) => w.kind === "approval-notifier")
        if (found !== undefined || Date.now() > deadline) return found
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    })()
    expect(beat).toMatchObject({ kind: "approval-notifier", stale: false })
    const page = await (await herald.call("/metrics", { token: herald.credentials.admin_token })).text()
    expect(page).toMatch(/herald_worker_heartbeats_total\{[^}]*kind="approval-notifier"[^}]*\} [1-9]/)
    expect(page).toMatch(/herald_worker_heartbeat_age_seconds\{[^}]*kind="approval-notifier"[^}]*\} /)
  }, 30_000)
})
