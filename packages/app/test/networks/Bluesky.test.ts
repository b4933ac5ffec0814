import { Bluesky } from "@herald/publishers"
import { type FaultProxy, type LocalAccount, type LocalPds, readRecord, startFaultProxy, startLocalPds } from "@herald/publishers/testing/bluesky"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, receiptWhen, startHerald, type TestHerald } from "../TestHerald.js"

/**
 * Bluesky end to end through the reference server, against a real PDS on loopback: an account
 * connected through the admin API's login with an app password, the quickstart's flow (an agent's
 * post held in the copilot project, approved by a person, published by the workers) writing the
 * record into the account's repo, an expired session whose app password was revoked failing
 * auth_expired with the account needs_reconnect, a reconnect with a new app password and a retry,
 * and a takedown deleting the record from the repo.
 *
 * Herald reaches the PDS through the fault proxy only to make an access token expire (the PDS fixes
 * them at two hours): the proxy hands the PDS the token re-signed with an expiry in the past, so the
 * PDS's own verifier refuses it, and the refresh that follows goes to the PDS unchanged.
 */
const variables = ["HERALD_BLUESKY_API_URL", "HERALD_BLUESKY_AUTH_URL", "HERALD_BLUESKY_PLC_URL"]
const receiptUrl = (handle: string) => new RegExp(`^https://bsky\\.app/profile/${handle.replace(/\./g, "\\.")}/post/[a-z2-7]{13}$`)

let pds: LocalPds
let proxy: FaultProxy
let herald: TestHerald
let owner: LocalAccount

beforeAll(async () => {
  pds = await startLocalPds()
  proxy = await startFaultProxy(pds.url, pds.expiredCopy)
  Object.assign(process.env, { HERALD_BLUESKY_API_URL: proxy.url, HERALD_BLUESKY_AUTH_URL: pds.url, HERALD_BLUESKY_PLC_URL: pds.plcUrl })
  herald = await startHerald({ workers: true, directRoutes: [Bluesky.blueskyDirectRoute] })
  owner = await pds.createAccount("heraldtester")
}, 60_000)

afterAll(async () => {
  await herald?.close()
  await proxy?.close()
  await pds?.close()
  for (const name of variables) delete process.env[name]
})

const admin = (path: string, body?: unknown) =>
  herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, {
    token: herald.credentials.admin_token,
    ...(body === undefined ? {} : { method: "POST", json: body })
  })

/** The owner makes an app password and gives it to Herald's login connection. */
const login = async (appPasswordName: string) =>
  admin("/accounts/login", { platform: "bluesky", identifier: owner.handle, password: await pds.createAppPassword(owner, appPasswordName) })

const blueskyAccount = async () =>
  (await json(await admin("/accounts"))).data.find((account: { route: string; platform: string }) =>
    account.route === "direct" && account.platform === "bluesky")

/** The quickstart: the agent creates the post, it waits in the copilot project, a person approves it. */
const quickstart = async (caption: string, handle = owner.handle) => {
  const created = await herald.call("/api/v1/posts", {
    method: "POST",
    token: herald.credentials.agent_key,
    json: { caption, social_accounts: [`bluesky:${handle}`] }
  })
  expect(created.status).toBe(201)
  const post = await json(created)
  expect(post.status).toBe("pending_approval")
  const approved = await herald.call(`/api/v1/posts/${post.id}/approve`, {
    method: "POST",
    token: herald.credentials.human_key,
    json: { decision: "approve" }
  })
  expect(approved.status).toBe(200)
  return receiptWhen(herald, post.id, (receipt) => ["posted", "failed", "partially_failed"].includes(receipt.post_status))
}

describe("Bluesky through the direct route, against a real local PDS", () => {
  it("connects with an app password, publishes the quickstart's post, needs a reconnect after the session died, retries and takes down", async () => {
    const connected = await login("herald")
    expect(connected.status).toBe(201)
    expect(await blueskyAccount()).toMatchObject({ username: owner.handle, status: "active" })

    const first = await quickstart("Hello Bluesky from Herald #launch")
    expect(first.post_status).toBe("posted")
    const delivery = first.data[0]
    expect(delivery.url).toMatch(receiptUrl(owner.handle))
    expect(delivery.platform_post_id).toBe(`at://${owner.did}/app.bsky.feed.post/${delivery.url.split("/").at(-1)}`)
    const written = await readRecord(pds, delivery.platform_post_id)
    expect(written?.value).toMatchObject({
      $type: "app.bsky.feed.post",
      text: "Hello Bluesky from Herald #launch",
      facets: [{ index: { byteStart: 26, byteEnd: 33 }, features: [{ $type: "app.bsky.richtext.facet#tag", tag: "launch" }] }],
      "dev.herald.marker": delivery.id
    })

    // The owner revokes the app password and the session's access token runs out: the refresh is refused.
    await pds.revokeAppPassword(owner, "herald")
    proxy.expireToken()
    const refused = await quickstart("After the app password was revoked")
    expect(refused.post_status).toBe("failed")
    expect(refused.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    expect((await blueskyAccount()).status).toBe("needs_reconnect")

    // A new app password reconnects the same account (same DID); the retry goes out.
    const account = await blueskyAccount()
    expect((await login("herald-again")).status).toBe(201)
    expect(await blueskyAccount()).toMatchObject({ id: account.id, status: "active" })
    const retried = await herald.call(`/api/v1/post-results/${refused.data[0].id}/retry`, {
      method: "POST",
      token: herald.credentials.human_key,
      json: {}
    })
    expect(retried.status).toBe(200)
    const after = await receiptWhen(herald, refused.post_id, (receipt) => receipt.post_status === "posted")
    expect(after.post_status).toBe("posted")
    expect(after.data[0].url).toMatch(receiptUrl(owner.handle))
    expect((await readRecord(pds, after.data[0].platform_post_id))?.value.text).toBe("After the app password was revoked")

    const takedown = await herald.call(`/api/v1/post-results/${delivery.id}/takedown`, {
      method: "POST",
      token: herald.credentials.human_key,
      json: {}
    })
    expect(takedown.status).toBe(200)
    expect(await readRecord(pds, delivery.platform_post_id)).toBeNull()
    expect(await readRecord(pds, after.data[0].platform_post_id)).not.toBeNull()
  }, 90_000)
})

describe("Bluesky through Herald's atproto OAuth connection, against a real local PDS", () => {
  /** Starts the connection through the admin API and has the owner consent at the PDS: where the PDS sends the browser back. */
  const consent = async (account: LocalAccount) => {
    const started = await admin("/accounts/oauth", { platform: "bluesky", identifier: account.handle })
    expect(started.status).toBe(201)
    const { authorize_url, redirect_uri } = await json(started)
    expect(redirect_uri).toBe(`${herald.origin.replace("127.0.0.1", "localhost")}/oauth/callback/bluesky`)
    expect(authorize_url).toMatch(new RegExp(`^${pds.url}/oauth/authorize\\?client_id=http%3A%2F%2Flocalhost%3F`))
    return pds.consent(authorize_url, account)
  }
  /** The browser arriving at Herald's callback (on the loopback address the loopback client names). */
  const arrive = (callback: URL) => herald.call(`${callback.pathname}${callback.search}`)

  it("connects through the consent page and Herald's callback, publishes with DPoP-bound tokens and takes down; a used or unknown state answers 400", async () => {
    const member = await pds.createAccount("oauthmember")
    const callback = await consent(member)
    expect(`${callback.origin}${callback.pathname}`).toBe(`${herald.origin}/oauth/callback/bluesky`)
    expect(callback.searchParams.get("iss")).toBe(pds.url)
    const page = await arrive(callback)
    expect(page.status, await page.clone().text()).toBe(200)
    const account = (await json(await admin("/accounts"))).data.find((one: { username: string }) => one.username === member.handle)
    expect(account).toMatchObject({ platform: "bluesky", route: "direct", status: "active" })

    // The same answer again, and a state Herald never issued: 400, nothing more connected.
    expect((await arrive(callback)).status).toBe(400)
    const forged = new URL(callback)
    forged.searchParams.set("state", "never-issued")
    expect((await arrive(forged)).status).toBe(400)
    const connected = (await json(await admin("/accounts"))).data.filter((one: { username: string }) => one.username === member.handle)
    expect(connected).toHaveLength(1)

    const published = await quickstart("Hello from Herald over atproto OAuth #dpop", member.handle)
    expect(published.post_status).toBe("posted")
    const delivery = published.data[0]
    expect(delivery.url).toMatch(receiptUrl(member.handle))
    expect(delivery.platform_post_id).toMatch(new RegExp(`^at://${member.did}/app\\.bsky\\.feed\\.post/`))
    expect((await readRecord(pds, delivery.platform_post_id))?.value.text).toBe("Hello from Herald over atproto OAuth #dpop")

    const takedown = await herald.call(`/api/v1/post-results/${delivery.id}/takedown`, {
      method: "POST",
      token: herald.credentials.human_key,
      json: {}
    })
    expect(takedown.status).toBe(200)
    expect(await readRecord(pds, delivery.platform_post_id)).toBeNull()
  }, 90_000)

  it("names the identifier when the handle resolves to no account (400, nothing saved)", async () => {
    const refused = await admin("/accounts/oauth", { platform: "bluesky", identifier: "nobody-here.test" })
    expect(refused.status).toBe(400)
    expect(await json(refused)).toMatchObject({ code: "connection_refused", violations: [{ field: "identifier" }] })
  })
})
