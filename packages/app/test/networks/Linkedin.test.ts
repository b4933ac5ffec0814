import { Linkedin } from "@herald/publishers"
import { LinkedinFake } from "@herald/publishers/testing/linkedin"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { adminOf, connectThroughConsent, setEnvironment, settledReceipt } from "./NetworkTest.js"

/**
 * The acceptance of LinkedIn's direct route, end to end through the reference server: an account
 * connected through Herald's OAuth flow on the fake's consent page, posts published by the
 * workers, an expired token, a reconnect and a retry, a takedown, and a PDF document post.
 */
const clientId = "86herald0test"
const clientSecret = "linkedin-test-secret"
const variables = {
  HERALD_LINKEDIN_API_URL: "",
  HERALD_LINKEDIN_AUTH_URL: "",
  HERALD_LINKEDIN_CLIENT_ID: clientId,
  HERALD_LINKEDIN_CLIENT_SECRET: clientSecret
}
const receiptUrl = /^https:\/\/www\.linkedin\.com\/feed\/update\/urn:li:share:\d{19}\/$/
const pdf = new TextEncoder().encode(
  "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
    "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
)

describe("LinkedIn through the direct route (fake LinkedIn on loopback)", () => {
  let fake: LinkedinFake
  let herald: TestHerald
  let restore = () => {}

  beforeAll(async () => {
    fake = await new LinkedinFake({ clientId, clientSecret }).start()
    // The route reads its endpoints from the environment, as the server does (put back after).
    restore = setEnvironment({ ...variables, HERALD_LINKEDIN_API_URL: fake.url, HERALD_LINKEDIN_AUTH_URL: fake.url })
    // The build's LinkedIn route, given as the test's own so that the guard lets it reach the fake.
    herald = await startHerald({
      workers: true,
      directRoutes: [Linkedin.linkedinDirectRoute],
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
  const connect = () => connectThroughConsent(herald, "linkedin", fake)
  const settled = (postId: string) => settledReceipt(api, postId)

  const post = async (account: { id: string }, body: Record<string, unknown>) => {
    const created = await api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })
    expect(created.status).toBe(201)
    return (await json(created)).id as string
  }

  it("connects through the consent page, publishes, needs a reconnect after the token expired, retries, takes down, and posts a titled PDF", async () => {
    const account = await connect()
    expect(account).toMatchObject({ status: "active", route: "direct", username: fake.member.name })

    const first = await settled(await post(account, { caption: "Hello LinkedIn (from Herald) #launch" }))
    expect(first.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(receiptUrl) })
    expect(fake.livePosts().map((live) => live.printed)).toEqual(["Hello LinkedIn (from Herald) #launch"])

    // The token expires and this app has no refresh token: the delivery fails, the account needs a reconnect.
    fake.expireToken()
    const expired = await settled(await post(account, { caption: "After the token expired" }))
    expect(expired.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    const marked = (await json(await admin("/accounts"))).data.find((one: { id: string }) => one.id === account.id)
    expect(marked.status).toBe("needs_reconnect")

    // Reconnecting the same LinkedIn member brings the same account back; the retry goes out.
    const again = await connect()
    expect(again).toMatchObject({ id: account.id, status: "active" })
    const retried = await api(`/post-results/${expired.data[0].id}/retry`, { method: "POST" })
    expect(retried.status).toBe(200)
    const afterRetry = await settled(expired.post_id)
    expect(afterRetry.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(receiptUrl) })

    const takedown = await api(`/post-results/${first.data[0].id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(200)
    expect(fake.livePosts().map((live) => live.id)).not.toContain(first.data[0].platform_post_id)

    const form = new FormData()
    form.append("file", new Blob([pdf], { type: "application/pdf" }), "q3.pdf")
    const uploaded = await api("/media", { method: "POST", body: form })
    expect(uploaded.status).toBe(200)
    const document = await json(uploaded)
    const titled = await settled(await post(account, {
      caption: "Our Q3 in one page",
      media_ids: [document.id],
      platform_configurations: { linkedin: { document_title: "Q3 in numbers" } }
    }))
    expect(titled.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(receiptUrl) })
    const live = fake.livePosts().find((one) => one.id === titled.data[0].platform_post_id)
    expect(live?.content).toEqual({ media: { id: expect.stringMatching(/^urn:li:document:/), title: "Q3 in numbers" } })
  }, 120_000)
})
