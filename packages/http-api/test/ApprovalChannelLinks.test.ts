import {
  ApprovalChannel,
  ApprovalChannelId,
  ApprovalChannels,
  type ClaimedApprovalMessage,
  type ProjectId
} from "@herald/core"
import { DateTime, Effect, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { approvalToken, readApprovalToken } from "../src/index.js"
import { approvalSecret, startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const run = <A>(effect: Effect.Effect<A, never, ApprovalChannels>) => Effect.runPromise(Effect.provide(effect, server.services))

const channel = (n: number, projectId: ProjectId, kind: "email" | "chat", recipient: string) =>
  new ApprovalChannel({
    id: ApprovalChannelId.make(`20000000-0000-4000-8000-00000000000${n}`),
    projectId,
    kind,
    recipient,
    createdAt: DateTime.unsafeMake(0)
  })

const decide = (path: string, fields: Record<string, string>) =>
  server.call(path, { method: "POST", body: new URLSearchParams(fields), headers: { "content-type": "application/x-www-form-urlencoded" } })

describe("approval channel links", () => {
  it("a channel token carries its message, reads back only unchanged, and differs from the post's own link", () => {
    const grant = { projectId: server.projects.one.id, postId: server.projects.two.id as never, version: 3 }
    const message = "30000000-0000-4000-8000-000000000001" as never
    const token = approvalToken(approvalSecret, { ...grant, message })
    expect(token).toMatch(/^[A-Za-z0-9_-]{92}$/)
    expect(Option.getOrThrow(readApprovalToken(approvalSecret, token))).toEqual({ ...grant, message })
    expect(token).not.toBe(approvalToken(approvalSecret, grant))
    // Another message id in the same token breaks its MAC: a reviewer cannot pass a link off as another's.
    const moved = Buffer.from(token, "base64url")
    moved[40] = moved[40]! ^ 1
    expect(readApprovalToken(approvalSecret, moved.toString("base64url"))._tag).toBe("None")
    expect(readApprovalToken(Redacted.make("other secret"), token)._tag).toBe("None")
  })

  it("a decision through one channel's link records that channel and recipient; the other channel's link then says it is decided", async () => {
    const project = server.projects.one.id
    await run(Effect.flatMap(ApprovalChannels, (channels) =>
      Effect.all([
        channels.add(channel(1, project, "email", "dana@example.com"), Redacted.make("dana@example.com")),
        channels.add(channel(2, project, "chat", "#approvals"), Redacted.make("https://hooks.example.com/secret"))
      ])))
    const created = await (await server.call("/api/v1/posts", {
      method: "POST",
      key: server.tokens.agent.key,
      json: { caption: "announce me", social_accounts: ["x:acme"] }
    })).json()
    const now = DateTime.unsafeNow()
    const claimed: ReadonlyArray<ClaimedApprovalMessage> = await run(Effect.flatMap(ApprovalChannels, (channels) =>
      Effect.zipRight(channels.fanOut(now), channels.claimDue({ now, limit: 10, leaseMillis: 60_000, worker: "test" }))))
    const mine = claimed.filter((message) => message.postId === created.id)
    expect(mine.map((message) => message.channel.recipient).sort()).toEqual(["#approvals", "dana@example.com"])
    const post = server.data.posts.get(created.id)!.post
    const linkOf = (recipient: string) =>
      `/approve/${
        approvalToken(approvalSecret, {
          projectId: project,
          postId: post.id,
          version: post.version,
          message: mine.find((message) => message.channel.recipient === recipient)!.id
        })
      }`

    expect(await (await server.call(linkOf("dana@example.com"))).text()).toContain("value=\"approve\"")
    expect((await decide(linkOf("dana@example.com"), { decision: "approve" })).status).toBe(200)
    expect(server.data.posts.get(created.id)!.post.decision).toMatchObject({
      outcome: "approved",
      via: "approval_link",
      by: null,
      channel: { kind: "email", recipient: "dana@example.com" }
    })
    const results = await (await server.call(`/api/v1/post-results?post_id=${created.id}`, { key: server.tokens.reader.key })).json()
    expect(JSON.stringify(results)).toContain("\"channel\":{\"kind\":\"email\",\"recipient\":\"dana@example.com\"}")

    const late = await decide(linkOf("#approvals"), { decision: "reject" })
    expect(late.status).toBe(409)
    expect(await late.text()).toContain("This post was approved")
    expect(server.data.posts.get(created.id)!.post.decision?.outcome).toBe("approved")
  })
})
