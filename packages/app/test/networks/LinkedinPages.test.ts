import { Linkedin } from "@herald/publishers"
import { LinkedinFake } from "@herald/publishers/testing/linkedin"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, receiptWhen, startHerald, type TestHerald } from "../TestHerald.js"

/**
 * LinkedIn pages through the reference server: with HERALD_LINKEDIN_ORGANIZATIONS=true the consent
 * asks for the organisation scopes, and one consent connects the member and each page the member
 * administers as accounts of their own; a post to a page goes out as the page.
 */
const clientId = "86herald0pages"
const clientSecret = "linkedin-pages-secret"

describe("LinkedIn pages through the direct route (fake LinkedIn on loopback)", () => {
  let fake: LinkedinFake
  let herald: TestHerald
  const saved: Record<string, string | undefined> = {}

  beforeAll(async () => {
    fake = await new LinkedinFake({
      clientId,
      clientSecret,
      member: { sub: "pAgEs0wNeR", name: "Grace Hopper", organizations: ["1337"], vanityNames: { "1337": "herald-labs" } }
    }).start()
    const variables = {
      HERALD_LINKEDIN_API_URL: fake.url,
      HERALD_LINKEDIN_AUTH_URL: fake.url,
      HERALD_LINKEDIN_CLIENT_ID: clientId,
      HERALD_LINKEDIN_CLIENT_SECRET: clientSecret,
      HERALD_LINKEDIN_ORGANIZATIONS: "true"
    }
    for (const [name, value] of Object.entries(variables)) {
      saved[name] = process.env[name]
      process.env[name] = value
    }
    herald = await startHerald({ workers: true, directRoutes: [Linkedin.linkedinDirectRoute] })
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  it("connects the member and the page from one consent, and posts as the page", async () => {
    const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
      herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, { token: herald.credentials.admin_token, ...init })
    const started = await admin("/accounts/oauth", { method: "POST", json: { platform: "linkedin" } })
    expect(started.status).toBe(201)
    const { authorize_url } = await json(started)
    expect(new URL(authorize_url).searchParams.get("scope")).toBe(
      "openid profile w_member_social w_organization_social r_organization_social rw_organization_admin"
    )
    const page = await fetch(await fake.consent(authorize_url))
    expect(page.status).toBe(200)

    const direct = (await json(await admin("/accounts"))).data
      .filter((account: { platform: string; route: string }) => account.platform === "linkedin" && account.route === "direct")
      .map((account: { username: string; status: string }) => [account.username, account.status])
      .sort()
    expect(direct).toEqual([["Grace Hopper", "active"], ["herald-labs", "active"]])

    const created = await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.human_key,
      json: { caption: "From the Herald Labs page", social_accounts: ["linkedin:herald-labs"] }
    })
    expect(created.status).toBe(201)
    const receipt = await receiptWhen(herald, (await json(created)).id, (one) => one.post_status === "posted")
    expect(receipt.post_status).toBe("posted")
    expect(fake.livePosts().find((post) => post.id === receipt.data[0].platform_post_id)?.author).toBe("urn:li:organization:1337")
  }, 90_000)
})
