/**
 * What the direct routes' end-to-end tests share: the route's variables set for the reference
 * server (and put back after), Herald's OAuth connection flow driven through a fake's consent
 * page, a post's receipt once every delivery settled, and its metrics once synced.
 */
import { expect } from "vitest"
import { json, type TestHerald } from "../TestHerald.js"

/** Sets the variables (the server reads its routes' endpoints from the environment); answers how to put them back. */
export const setEnvironment = (variables: Record<string, string>) => {
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]))
  Object.assign(process.env, variables)
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

export const adminOf = (herald: TestHerald) => (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
  herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, { token: herald.credentials.admin_token, ...init })

/**
 * Herald's connect flow: the consent URL from the admin API, approved on the fake, and Herald's
 * callback; answers the platform's direct account as the admin API lists it.
 */
export const connectThroughConsent = async (
  herald: TestHerald,
  platform: string,
  fake: { readonly consent: (authorizeUrl: string) => Promise<URL> },
  /** The login to connect through (Instagram's facebook_login); the account answered is that route's. */
  route = "direct"
) => {
  const admin = adminOf(herald)
  const started = await admin("/accounts/oauth", { method: "POST", json: { platform, ...(route === "direct" ? {} : { route }) } })
  expect(started.status).toBe(201)
  const { authorize_url, redirect_uri } = await json(started)
  const callback = await fake.consent(authorize_url)
  expect(`${callback.origin}${callback.pathname}`).toBe(redirect_uri)
  expect((await fetch(callback)).status).toBe(200)
  const accounts = await json(await admin("/accounts"))
  return accounts.data.find((account: { platform: string; route: string }) => account.platform === platform && account.route === route)
}

/**
 * The receipt once every delivery settled (no longer queued, publishing or unknown): read every
 * 50 ms, so the key needs room for it (startHerald's humanKeyRateLimit), for `seconds` at most.
 */
export const settledReceipt = async (api: (path: string) => Promise<Response>, postId: string, seconds = 30) => {
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    const reply = await api(`/post-results?post_id=${postId}`)
    if (reply.status !== 200) throw new Error(`GET /post-results answered ${reply.status}: ${await reply.text()}`)
    const receipt = await json(reply)
    if (receipt.data.every((row: { status: string }) => !["queued", "publishing", "unknown"].includes(row.status))) return receipt
    if (Date.now() > deadline) throw new Error(`post ${postId} did not settle`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The post's GET /metrics rows once the metrics sync has given one to each of its `deliveries` (read every 50 ms, 30 s at most). */
export const syncedMetrics = async (api: (path: string) => Promise<Response>, postId: string, deliveries = 1) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const reply = await api(`/metrics?post_id=${postId}`)
    const rows = reply.status === 200 ? (await json(reply)).data : []
    if (rows.length === deliveries) return rows
    if (Date.now() > deadline) throw new Error("the post's metrics were never synced")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
