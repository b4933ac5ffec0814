import { Facebook, Meta } from "@herald/publishers"
import { FacebookFake } from "@herald/publishers/testing/facebook"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Fixtures, makeFixtures } from "../media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { settledReceipt } from "./NetworkTest.js"

/**
 * The acceptance of Facebook Pages' direct route, end to end through the reference server: Pages
 * connected through Herald's OAuth flow on the fake's login dialog (one account per Page the user
 * may post to), posts of every kind published by the workers (text with a link, photos, a video
 * through the resumable upload, photos beside a video, a reel, a story), a refusal that is not
 * retried, a revoked login (auth_expired, needs_reconnect), a reconnect and a retry, and a takedown.
 */
const clientId = "987654321012345"
const clientSecret = "facebook-test-secret"
const pages = [
  { id: "104000000000001", name: "Acme Bakery", tasks: ["ANALYZE", "CREATE_CONTENT", "MANAGE"] },
  { id: "104000000000002", name: "Acme Cafe", tasks: ["CREATE_CONTENT"] },
  // A Page the user may only read insights on: not an account.
  { id: "104000000000003", name: "Acme Analytics", tasks: ["ANALYZE"] },
  // A Page the user did not tick in the dialog: no token, not an account.
  { id: "104000000000004", name: "Acme Withheld", tasks: ["CREATE_CONTENT"] }
]

describe("Facebook Pages through the direct route (fake Facebook on loopback)", () => {
  let fake: FacebookFake
  let herald: TestHerald
  let fixtures: Fixtures
  const saved: Record<string, string | undefined> = {}

  beforeAll(async () => {
    fixtures = makeFixtures()
    fake = await new FacebookFake({ clientId, clientSecret, version: Meta.graphVersions.facebook, pages, withheld: ["104000000000004"], chunkBytes: 4096 }).start()
    const variables = {
      HERALD_FACEBOOK_API_URL: fake.url,
      HERALD_FACEBOOK_AUTH_URL: fake.url,
      HERALD_FACEBOOK_CLIENT_ID: clientId,
      HERALD_FACEBOOK_CLIENT_SECRET: clientSecret
    }
    for (const [name, value] of Object.entries(variables)) {
      saved[name] = process.env[name]
      process.env[name] = value
    }
    herald = await startHerald({
      workers: true,
      directRoutes: [Facebook.facebookDirectRoute],
      // The receipts are polled more often than 60 requests a minute allow.
      humanKeyRateLimit: 5000
    })
  }, 60_000)

  afterAll(async () => {
    await herald?.close()
    await fake?.stop()
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  const admin = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) =>
    herald.call(`/admin/v1/projects/${herald.credentials.project_id}${path}`, { token: herald.credentials.admin_token, ...init })
  const api = (path: string, init: Parameters<TestHerald["call"]>[1] = {}) => herald.call(`/api/v1${path}`, { token: herald.credentials.human_key, ...init })

  type Account = { id: string; platform: string; route: string; username: string; status: string }

  const connect = async (): Promise<ReadonlyArray<Account>> => {
    const started = await admin("/accounts/oauth", { method: "POST", json: { platform: "facebook" } })
    expect(started.status).toBe(201)
    const { authorize_url, redirect_uri } = await json(started)
    expect(new URL(authorize_url).pathname).toBe(`/${Meta.graphVersions.facebook}/dialog/oauth`)
    const callback = await fake.login.consent(authorize_url)
    expect(`${callback.origin}${callback.pathname}`).toBe(redirect_uri)
    const page = await fetch(callback)
    expect(page.status).toBe(200)
    const accounts = await json(await admin("/accounts"))
    return accounts.data.filter((account: Account) => account.platform === "facebook" && account.route === "direct")
  }

  const settled = (postId: string) => settledReceipt(api, postId)

  const post = async (account: { id: string }, body: Record<string, unknown>) => {
    const created = await api("/posts", { method: "POST", json: { social_accounts: [account.id], ...body } })
    expect(created.status, JSON.stringify(await created.clone().json())).toBe(201)
    return (await json(created)).id as string
  }

  const upload = async (bytes: Uint8Array, name: string, type: string) => {
    const form = new FormData()
    form.append("file", new Blob([bytes], { type }), name)
    const uploaded = await api("/media", { method: "POST", body: form })
    expect(uploaded.status).toBe(200)
    return (await json(uploaded)).id as string
  }

  const live = (id: string) => fake.livePosts().find((one) => one.id === id)

  it("connects one account per Page the user may post to, and lists link in GET /posting-rules", async () => {
    const accounts = await connect()
    expect(accounts.map((account) => account.username).sort()).toEqual(["Acme Bakery", "Acme Cafe"])
    expect(accounts.every((account) => account.status === "active")).toBe(true)
    const rules = await json(await api(`/posting-rules?account_ids=${accounts[0]!.id}`))
    expect(JSON.stringify(rules)).toContain("\"link\"")
  })

  it("publishes every kind of post, refuses without retrying, needs a reconnect once the login is revoked, retries, and takes down", async () => {
    const [bakery] = (await connect()).filter((account) => account.username === "Acme Bakery")
    const photoA = await upload(fixtures.png, "a.png", "image/png")
    const photoB = await upload(fixtures.jpeg, "b.jpg", "image/jpeg")
    const clip = await upload(fixtures.mp4, "clip.mp4", "video/mp4")

    const linked = await settled(await post(bakery!, { caption: "Fresh bread today", platform_configurations: { facebook: { link: "https://example.com/bread" } } }))
    expect(linked.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(/^https:\/\/www\.facebook\.com\//) })
    expect(live(linked.data[0].platform_post_id)).toMatchObject({ kind: "feed", message: "Fresh bread today", link: "https://example.com/bread" })

    const photos = await settled(await post(bakery!, { caption: "Two loaves", media_ids: [photoA, photoB] }))
    expect(photos.data[0]).toMatchObject({ status: "success" })
    expect(live(photos.data[0].platform_post_id)).toMatchObject({ kind: "feed", message: "Two loaves", media: [{ kind: "photo" }, { kind: "photo" }] })

    const single = await settled(await post(bakery!, { caption: "One loaf", media_ids: [photoA] }))
    expect(live(single.data[0].platform_post_id)).toMatchObject({ kind: "photo", message: "One loaf", media: [{ kind: "photo" }] })

    const video = await settled(await post(bakery!, { caption: "Kneading", media_ids: [clip] }))
    expect(live(video.data[0].platform_post_id)).toMatchObject({ kind: "video", message: "Kneading", media: [{ kind: "video", bytes: fixtures.mp4.length }] })

    // Photos and a video together: the video goes, the receipt says the photos were left behind.
    const mixed = await settled(await post(bakery!, { caption: "Both", media_ids: [photoA, clip] }))
    expect(mixed.data[0]).toMatchObject({ status: "success", note_kind: null, note: expect.stringContaining("left behind") })
    expect(live(mixed.data[0].platform_post_id)).toMatchObject({ kind: "video", media: [{ kind: "video" }] })

    const reel = await settled(await post(bakery!, { caption: "A reel", media_ids: [clip], platform_configurations: { facebook: { placement: "reels" } } }))
    expect(reel.data[0]).toMatchObject({ status: "success", url: `https://www.facebook.com/reel/${reel.data[0].platform_post_id}` })
    expect(live(reel.data[0].platform_post_id)).toMatchObject({ kind: "reel", message: "A reel" })

    const story = await settled(await post(bakery!, { media_ids: [photoB], platform_configurations: { facebook: { placement: "stories" } } }))
    expect(story.data[0]).toMatchObject({ status: "success" })
    expect(live(story.data[0].platform_post_id)).toMatchObject({ kind: "story", media: [{ kind: "photo" }] })

    // A refusal of the content is not retried.
    fake.server.failNext({ status: 400, body: { error: { message: "(#506) Duplicate status message", type: "OAuthException", code: 506, error_user_msg: "You already posted this.", fbtrace_id: "AdupTrace" } } }, { only: "POST" })
    const duplicate = await settled(await post(bakery!, { caption: "Fresh bread today" }))
    expect(duplicate.data[0]).toMatchObject({ status: "failed", error_category: "content_rejected", retries: 0 })
    expect(JSON.stringify(duplicate.data[0])).toContain("You already posted this.")

    // The user removed the app: the Page token and the user token both die; a person must log in again.
    fake.login.revokeGrant()
    const revoked = await settled(await post(bakery!, { caption: "After the app was removed" }))
    expect(revoked.data[0]).toMatchObject({ status: "failed", error_category: "auth_expired" })
    const marked = (await json(await admin("/accounts"))).data.find((one: Account) => one.id === bakery!.id)
    expect(marked.status).toBe("needs_reconnect")
    const again = (await connect()).find((one) => one.id === bakery!.id)
    expect(again).toMatchObject({ status: "active" })
    expect((await api(`/post-results/${revoked.data[0].id}/retry`, { method: "POST" })).status).toBe(200)
    const afterRetry = await settled(revoked.post_id)
    expect(afterRetry.data[0]).toMatchObject({ status: "success" })
    expect(live(afterRetry.data[0].platform_post_id)?.message).toBe("After the app was removed")

    const takedown = await api(`/post-results/${linked.data[0].id}/takedown`, { method: "POST" })
    expect(takedown.status).toBe(200)
    expect(live(linked.data[0].platform_post_id)).toBeUndefined()
  }, 120_000)
})
