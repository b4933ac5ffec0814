import { X } from "@herald/publishers"
import { startXFake, type XFake } from "@herald/publishers/testing/x"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, publishAndWait, receiptWhen, startHerald, type TestHerald } from "./TestHerald.js"

/**
 * X end to end: Herald configured against the X fake (HERALD_X_* variables), an account connected
 * through the admin API's consent URL and Herald's public callback, the quickstart's POST /posts
 * publishing to it, an expired token refreshed, a revoked grant failing auth_expired with the
 * account needs_reconnect, a reconnect and a retry, and a takedown deleting the post on X.
 */
const variables = ["HERALD_X_API_URL", "HERALD_X_AUTH_URL", "HERALD_X_CLIENT_ID", "HERALD_X_CLIENT_SECRET"]

let fake: XFake
let herald: TestHerald

beforeAll(async () => {
  fake = await startXFake()
  Object.assign(process.env, {
    HERALD_X_API_URL: fake.url,
    HERALD_X_AUTH_URL: fake.url,
    HERALD_X_CLIENT_ID: fake.clientId,
    HERALD_X_CLIENT_SECRET: fake.clientSecret ?? ""
  })
  herald = await startHerald({ directRoutes: [X.xDirectRoute] })
}, 60_000)

afterAll(async () => {
  await herald?.close()
  await fake?.close()
  for (const name of variables) delete process.env[name]
})

const admin = (path: string, body?: unknown) =>
  herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, {
    token: herald.credentials.admin_token,
    ...(body === undefined ? {} : { method: "POST", json: body })
  })

/** Starts a connection, follows the consent URL on the fake, and answers Herald's callback. */
const connect = async () => {
  const started = await admin("/accounts/oauth", { platform: "x" })
  expect(started.status).toBe(201)
  const consented = await fetch((await json(started)).authorize_url, { redirect: "manual" })
  expect(consented.status).toBe(302)
  const callback = new URL(consented.headers.get("location")!)
  return fetch(`${herald.origin}${callback.pathname}${callback.search}`)
}

const xAccount = async () =>
  (await json(await admin("/accounts"))).data.find((account: { route: string; platform: string }) => account.route === "direct" && account.platform === "x")

const receiptOf = (postId: string, until: (receipt: { post_status: string }) => boolean) => receiptWhen(herald, postId, until)

const publish = (caption: string) => publishAndWait(herald, caption, [`x:${fake.user.username}`])

describe("X through the direct route, against the X fake", () => {
  it("connects through X's consent page, publishes with the real URL shape, refreshes, reconnects and takes down", async () => {
    expect((await connect()).status).toBe(200)
    expect(await xAccount()).toMatchObject({ username: fake.user.username, status: "active" })

    const first = await publish("Hello X from Herald")
    expect(first.post_status).toBe("posted")
    const delivery = first.data[0]
    expect(delivery.url).toBe(`https://x.com/${fake.user.username}/status/${delivery.platform_post_id}`)
    expect(fake.stored().find((post) => post.id === delivery.platform_post_id)?.text).toContain("Hello X from Herald")

    fake.expireToken()
    const refreshes = fake.refreshes()
    expect((await publish("After the token expired")).post_status).toBe("posted")
    expect(fake.refreshes()).toBe(refreshes + 1)

    fake.revokeGrant()
    const refused = await publish("After the grant was revoked")
    expect(refused.post_status).toBe("failed")
    expect(refused.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    expect((await xAccount()).status).toBe("needs_reconnect")
    const openIssues = async () => {
      const reply = await herald.call("/api/v1/connection-issues", { token: herald.credentials.human_key })
      return ((await reply.json()) as { data: Array<{ kind: string; account: { platform: string } }> }).data
        .filter((issue) => issue.account.platform === "x")
        .map((issue) => issue.kind)
    }
    expect(await openIssues()).toEqual(["login_dead"])

    expect((await connect()).status).toBe(200)
    expect((await xAccount()).status).toBe("active")
    // The reconnect through the consent page closes the incident at once, not at the next probe.
    expect(await openIssues()).toEqual([])
    const retried = await herald.call(`/api/v1/post-results/${refused.data[0].id}/retry`, { method: "POST", token: herald.credentials.human_key, json: {} })
    expect(retried.status).toBe(200)
    const after = await receiptOf(refused.post_id, (receipt) => receipt.post_status === "posted")
    expect(after.post_status).toBe("posted")

    const takedown = await herald.call(`/api/v1/post-results/${delivery.id}/takedown`, { method: "POST", token: herald.credentials.human_key, json: {} })
    expect(takedown.status).toBeLessThan(300)
    expect(fake.stored().find((post) => post.id === delivery.platform_post_id)).toBeUndefined()
  }, 90_000)

  it("takes down a thread whole: the follow-ups and the first comment Herald posted, then the main post", async () => {
    const created = await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.human_key,
      json: {
        caption: "A thread from Herald (1/3)",
        social_accounts: [`x:${fake.user.username}`],
        platform_configurations: { x: { thread: ["The middle (2/3)", "The end (3/3)"], first_comment: "Links in here" } }
      }
    })
    expect(created.status).toBe(201)
    const receipt = await receiptOf((await json(created)).id, (one) => one.post_status === "posted")
    const main = receipt.data[0].platform_post_id
    const thread = () => fake.stored().filter((post) => post.id === main || post.text.includes("(2/3)") || post.text.includes("(3/3)") || post.text.includes("Links in here"))
    expect(thread()).toHaveLength(4)

    const takedown = await herald.call(`/api/v1/post-results/${receipt.data[0].id}/takedown`, { method: "POST", token: herald.credentials.human_key, json: {} })
    expect(takedown.status).toBe(200)
    expect(thread()).toEqual([])
  }, 60_000)
})
