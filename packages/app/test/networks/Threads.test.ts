import { Threads } from "@herald/publishers"
import { ThreadsFake } from "@herald/publishers/testing/threads"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { adminOf, connectThroughConsent, setEnvironment, settledReceipt } from "./NetworkTest.js"

/**
 * The acceptance of Threads' direct route, end to end through the reference server: an account
 * connected through Herald's OAuth flow on the fake's consent page (the code exchanged, then the
 * long-lived token), posts published by the workers through the container flow, a token that
 * lapsed (auth_expired, needs_reconnect), a reconnect and a retry, and a takedown.
 */
const clientId = "1234567890123456"
const clientSecret = "threads-test-secret"
const receiptUrl = /^https:\/\/www\.threads\.net\/@ada\.lovelace\/post\/[A-Za-z0-9_-]{11}$/

describe("Threads through the direct route (fake Threads on loopback)", () => {
  let fake: ThreadsFake
  let herald: TestHerald
  let restore = () => {}

  beforeAll(async () => {
    fake = await new ThreadsFake({ clientId, clientSecret }).start()
    restore = setEnvironment({
      HERALD_THREADS_API_URL: fake.url,
      HERALD_THREADS_AUTH_URL: fake.url,
      HERALD_THREADS_CLIENT_ID: clientId,
      HERALD_THREADS_CLIENT_SECRET: clientSecret
    })
    herald = await startHerald({
      workers: true,
      directRoutes: [Threads.threadsDirectRoute],
      // The receipts are polled more often than 60 requests a minute allow.
      humanKeyRateLimit: 5000
    })
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
    restore()
  })

  const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => adminOf(herald)(path, init)
  const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })
  const connect = () => connectThroughConsent(herald, "threads", fake)
  const settled = (postId: string) => settledReceipt(api, postId)

  const post = async (account: { id: string }, body: Record<string, unknown>) => {
    const created = await api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })
    expect(created.status).toBe(201)
    return (await json(created)).id as string
  }

  it("lists link_attachment beside the contract's options in GET /posting-rules", async () => {
    const account = await connect()
    const reply = await api(`/posting-rules?account_ids=${account.id}`)
    expect(reply.status).toBe(200)
    const rules = await json(reply)
    const keys = JSON.stringify(rules)
    for (const key of ["topic_tag", "reply_control", "poll_option_a", "gif_id", "crosspost_ig_story", "link_attachment"]) expect(keys).toContain(key)
  })

  it("connects through the consent page, publishes with options, needs a reconnect once the token lapsed, retries, and takes down", async () => {
    const account = await connect()
    expect(account).toMatchObject({ status: "active", route: "direct", username: "ada.lovelace" })

    const first = await settled(await post(account, {
      caption: "Hello Threads (from Herald)",
      platform_configurations: { threads: { topic_tag: "launch", reply_control: "accounts_you_follow", link_attachment: "https://example.com/launch" } }
    }))
    expect(first.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(receiptUrl) })
    const [live] = fake.livePosts()
    expect(live?.container.fields).toMatchObject({
      media_type: "TEXT",
      text: "Hello Threads (from Herald)",
      topic_tag: "launch",
      reply_control: "accounts_you_follow",
      link_attachment: "https://example.com/launch"
    })
    expect(first.data[0].url).toBe(`https://www.threads.net/@ada.lovelace/post/${live?.shortcode}`)

    // The token ran out unrefreshed: Threads refuses it and its refresh; a person must reconnect.
    fake.lapse()
    const expired = await settled(await post(account, { caption: "After the token lapsed" }))
    expect(expired.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    const marked = (await json(await admin("/accounts"))).data.find((one: { id: string }) => one.id === account.id)
    expect(marked.status).toBe("needs_reconnect")

    const again = await connect()
    expect(again).toMatchObject({ id: account.id, status: "active" })
    const retried = await api(`/post-results/${expired.data[0].id}/retry`, { method: "POST" })
    expect(retried.status).toBe(200)
    const afterRetry = await settled(expired.post_id)
    expect(afterRetry.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(receiptUrl) })
    expect(fake.livePosts().map((one) => one.container.fields["text"])).toContain("After the token lapsed")

    const takedown = await api(`/post-results/${first.data[0].id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(200)
    expect(fake.livePosts().map((one) => one.id)).not.toContain(first.data[0].platform_post_id)
  }, 120_000)
})
