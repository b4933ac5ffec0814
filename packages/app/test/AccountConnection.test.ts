import { fakeDirectRoute, fakePlatform, OAuthFake } from "@herald/publishers/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, publishAndWait, receiptWhen, startHerald, type TestHerald } from "./TestHerald.js"

/**
 * The connection flow end to end: the admin API's consent URL followed with a real HTTP client
 * through a loopback OAuth platform (PKCE checked there) to Herald's public callback, the tokens
 * exchanged and stored by Herald alone, then used, refreshed and lost by the route's publisher.
 */
const variables = {
  HERALD_THREADS_API_URL: "",
  HERALD_THREADS_AUTH_URL: "",
  HERALD_THREADS_CLIENT_ID: "herald-test-client",
  HERALD_THREADS_CLIENT_SECRET: "herald-test-secret"
}

let fake: OAuthFake
let herald: TestHerald

beforeAll(async () => {
  fake = new OAuthFake({ clientId: variables.HERALD_THREADS_CLIENT_ID, clientSecret: variables.HERALD_THREADS_CLIENT_SECRET })
  await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve))
  Object.assign(process.env, { ...variables, HERALD_THREADS_API_URL: fake.url, HERALD_THREADS_AUTH_URL: fake.url })
  herald = await startHerald({ directRoutes: [fakeDirectRoute] })
}, 60_000)

afterAll(async () => {
  await herald?.close()
  await fake?.close()
  for (const name of Object.keys(variables)) delete process.env[name]
})

const admin = (path: string, body?: unknown) =>
  herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, {
    token: herald.credentials.admin_token,
    ...(body === undefined ? {} : { method: "POST", json: body })
  })

/** Starts a connection and follows the consent URL to the fake, answering with the callback URL it redirects to. */
const consent = async (): Promise<string> => {
  const started = await admin("/accounts/oauth", { platform: fakePlatform })
  expect(started.status).toBe(201)
  const { authorize_url, redirect_uri } = await json(started)
  expect(redirect_uri).toBe(`${new URL(redirect_uri).origin}/oauth/callback/${fakePlatform}`)
  const authorize = new URL(authorize_url)
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")
  const consented = await fetch(authorize_url, { redirect: "manual" })
  expect(consented.status).toBe(302)
  // Herald's callback, reached on the address the test server listens on.
  const callback = new URL(consented.headers.get("location")!)
  return `${herald.origin}${callback.pathname}${callback.search}`
}

const directAccounts = async () =>
  (await json(await admin("/accounts"))).data.filter((account: { route: string }) => account.route === "direct")

const receiptOf = (postId: string, until: (receipt: { post_status: string }) => boolean) => receiptWhen(herald, postId, until)

const publish = (caption: string) => publishAndWait(herald, caption, [`${fakePlatform}:acme`])

describe("connecting a direct account through OAuth", () => {
  it("connects once per consent; the state is single-use and bound to its platform; a second consent reconnects", async () => {
    const callback = await consent()
    const connected = await fetch(callback)
    expect(connected.status).toBe(200)
    expect(await connected.text()).toContain(`${fakePlatform}:acme is connected`)
    expect(fake.tokenCalls).toEqual(["authorization_code"])
    const [account] = await directAccounts()
    expect(account).toMatchObject({ platform: fakePlatform, username: "acme", status: "active" })

    // The same answer again: the state was used.
    const replayed = await fetch(callback)
    expect(replayed.status).toBe(400)
    expect(await replayed.text()).toContain("unknown or was used already")

    // A state handed to another platform's callback is refused and spent.
    const foreign = new URL(await consent())
    const elsewhere = await fetch(`${herald.origin}/oauth/callback/x${foreign.search}`)
    expect(elsewhere.status).toBe(400)
    expect((await fetch(foreign)).status).toBe(400)

    // A made-up state, and none at all.
    expect((await fetch(`${herald.origin}/oauth/callback/${fakePlatform}?state=forged&code=x`)).status).toBe(400)
    expect((await fetch(`${herald.origin}/oauth/callback/${fakePlatform}?code=x`)).status).toBe(400)
    expect(fake.tokenCalls).toEqual(["authorization_code"])

    // A second consent of the same platform account reconnects it: same id, no twin.
    fake.user.username = "acme_renamed"
    expect((await fetch(await consent())).status).toBe(200)
    fake.user.username = "acme"
    expect((await fetch(await consent())).status).toBe(200)
    const accounts = await directAccounts()
    expect(accounts).toHaveLength(1)
    expect(accounts[0].id).toBe(account.id)
  }, 60_000)

  it("publishes with the stored token, refreshes an expired one once, and asks for a reconnect when the grant is revoked", async () => {
    const first = await publish("Hello through the kit")
    expect(first.post_status).toBe("posted")
    expect(fake.posts.at(-1)?.text).toContain("Hello through the kit")

    fake.expireToken()
    const refreshesBefore = fake.refreshes()
    const second = await publish("After the token expired")
    expect(second.post_status).toBe("posted")
    expect(fake.refreshes()).toBe(refreshesBefore + 1)

    fake.revokeGrant()
    const third = await publish("After the grant was revoked")
    expect(third.post_status).toBe("failed")
    expect(third.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    const [account] = await directAccounts()
    expect(account.status).toBe("needs_reconnect")

    // Reconnect, then retry the failed delivery: it goes out.
    expect((await fetch(await consent())).status).toBe(200)
    expect((await directAccounts())[0].status).toBe("active")
    const retried = await herald.call(`/api/v1/post-results/${third.data[0].id}/retry`, { method: "POST", token: herald.credentials.human_key, json: {} })
    expect(retried.status).toBe(200)
    const after = await receiptOf(third.post_id, (receipt) => receipt.post_status === "posted")
    expect(after.post_status).toBe("posted")
  }, 60_000)

  it("answers 400 naming the way to connect, or why a platform cannot be", async () => {
    const byName = await admin("/accounts", { platform: fakePlatform, username: "acme", route: "direct" })
    expect(byName.status).toBe(400)
    expect(await json(byName)).toMatchObject({ code: "connection_method_mismatch" })
    const noRoute = await admin("/accounts/oauth", { platform: "pinterest" })
    expect(noRoute.status).toBe(400)
    expect(await json(noRoute)).toMatchObject({ code: "route_not_supported" })
    const noLogin = await admin("/accounts/login", { platform: fakePlatform, identifier: "acme", password: "secret-app-password" })
    expect(noLogin.status).toBe(400)
    const refused = await json(noLogin)
    expect(refused).toMatchObject({ code: "connection_method_mismatch" })
    expect(JSON.stringify(refused)).not.toContain("secret-app-password")
  })

  it("refuses an over-long or non-string app password naming the field without repeating it", async () => {
    // A short value sent as the wrong type is the case a schema's own message would quote whole.
    for (const password of [`secret-app-password-${"x".repeat(300)}`, ["secret-app-password"]]) {
      const refused = await admin("/accounts/login", { platform: "bluesky", identifier: "acme.bsky.social", password })
      expect(refused.status).toBe(400)
      const body = JSON.stringify(await json(refused))
      expect(body).toContain("password")
      expect(body).not.toContain("secret-app-password")
    }
  })
})
