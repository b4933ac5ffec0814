import { ConnectionHealth, type OAuthProvider, type PublishRequest, type SocialAccount } from "@herald/core"
import { Effect, Exit, Option, TestContext } from "effect"
import { randomUUID } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { linkedinVersion } from "../../src/linkedin/Rest.js"
import { memberScopes, organizationScopes } from "../../src/linkedin/LinkedinOAuth.js"
import { hungCallDeadlines } from "../kit/Deadlines.js"
import { driven } from "../kit/Driven.js"
import { makeHarness, mediaItem, pdfBytes } from "./harness.js"

type Harness = Awaited<ReturnType<typeof makeHarness>>
let harness: Harness | undefined
const open = async (...args: Parameters<typeof makeHarness>) => {
  harness = await makeHarness(...args)
  return harness
}
afterEach(async () => {
  await harness?.stop()
  harness = undefined
})

const request = (account: SocialAccount, text: string | null, extra: Partial<PublishRequest> = {}): PublishRequest => ({
  account,
  text,
  media: [],
  configuration: undefined,
  marker: randomUUID(),
  ...extra
})

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
/** As `run`, with the processing polls' pauses on a TestClock moved on as soon as the publish sleeps. */
const drive = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flatten(driven(effect)).pipe(Effect.provide(TestContext.TestContext)))
const fail = async <A, E>(effect: Effect.Effect<A, E>): Promise<E> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (failure === undefined) throw new Error(`expected a typed failure, got ${exit.cause._tag}`)
  return failure
}

/** The consent URL the provider starts with for a state of the test's choosing. */
const authorizeUrl = async (provider: OAuthProvider, state: string) =>
  (await run(provider.start({ state, codeChallenge: "c", redirectUri: "https://herald.example/cb", publicUrl: "https://herald.example", loginHint: null })))
    .authorizeUrl

const receiptUrl = /^https:\/\/www\.linkedin\.com\/feed\/update\/urn:li:share:\d{19}\/$/

describe("LinkedIn OAuth", () => {
  it("sends the member to LinkedIn's consent page and exchanges the code for a token and the member's identity", async () => {
    const { connect, fake, route } = await open()
    const consent = new URL(await authorizeUrl(route.oauth, "s1"))
    expect(`${consent.origin}${consent.pathname}`).toBe(`${fake.url}/oauth/v2/authorization`)
    expect(consent.searchParams.get("scope")).toBe("openid profile w_member_social")
    expect(consent.searchParams.get("response_type")).toBe("code")
    // LinkedIn's web flow takes no PKCE (docs/networks/linkedin.md).
    expect(consent.searchParams.has("code_challenge")).toBe(false)

    const { account, credentials } = await connect()
    expect(account).toMatchObject({ platform: "linkedin", route: "direct", username: fake.member.name, status: "active" })
    expect(await run(route.oauth.identify(credentials))).toEqual({ platformAccountId: `urn:li:person:${fake.member.sub}`, username: fake.member.name })
    expect(credentials["author_urn"]).toBe(`urn:li:person:${fake.member.sub}`)
    expect(credentials["scope"]).toBe("openid profile w_member_social")
    expect(Date.parse(String(credentials["expires_at"])) - Date.now()).toBeGreaterThan(59 * 24 * 3600 * 1000)
    expect(credentials["refresh_token"]).toBeUndefined()
    expect(fake.tokenCalls).toEqual(["authorization_code"])
  })

  it("refuses a code used twice as LinkedIn does (auth_expired)", async () => {
    const { fake, route } = await open()
    const callback = await fake.consent(await authorizeUrl(route.oauth, "s"))
    const code = callback.searchParams.get("code")!
    await run(route.oauth.exchange({ code, codeVerifier: "v", redirectUri: "https://herald.example/cb", carried: null, issuer: null }))
    const second = await fail(route.oauth.exchange({ code, codeVerifier: "v", redirectUri: "https://herald.example/cb", carried: null, issuer: null }))
    expect(second.error.category).toBe("auth_expired")
  })

  it("connects each page the member administers beside the member, from one consent with the organisation scopes", async () => {
    const { connect, data, fake, page, route } = await open(
      {
        member: {
          sub: "aBcD3fGh1J",
          name: "Ada Lovelace",
          organizations: ["2414183", "5550001"],
          otherRoles: [{ organization: "7770002", role: "ANALYST", state: "APPROVED" }, { organization: "8880003", role: "ADMINISTRATOR", state: "REQUESTED" }],
          vanityNames: { "2414183": "devtestco" }
        }
      },
      { scopes: [...memberScopes, ...organizationScopes] }
    )
    const consent = new URL(await authorizeUrl(route.oauth, "s"))
    expect(consent.searchParams.get("scope")).toBe("openid profile w_member_social w_organization_social r_organization_social rw_organization_admin")

    const { account } = await connect()
    expect(account.username).toBe("Ada Lovelace")
    const connected = () => [...data.accounts.values()].map((one) => one.username).sort()
    // Only the approved ADMINISTRATOR roles: not the analyst page, not the pending one.
    expect(connected()).toEqual(["Ada Lovelace", "devtestco", "page-5550001"])
    expect(fake.calls.filter((call) => call.startsWith("GET /rest/organizationAcls"))).toEqual([
      "GET /rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&start=0&count=100"
    ])
    expect(data.credentials.get(page("devtestco").id)?.["author_urn"]).toBe("urn:li:organization:2414183")
    expect(data.credentials.get(page("page-5550001").id)?.["member_urn"]).toBe("urn:li:person:aBcD3fGh1J")

    // Consenting again reconnects the same accounts instead of adding copies.
    const pageId = page("devtestco").id
    await connect()
    expect(connected()).toEqual(["Ada Lovelace", "devtestco", "page-5550001"])
    expect(page("devtestco").id).toBe(pageId)

    const published = await run(route.adapters.publisher.publish(request(page("page-5550001"), "from the second page")))
    expect(fake.livePosts().find((post) => post.id === published.platformPostId)?.author).toBe("urn:li:organization:5550001")
  })

  it("connects the member only, and lists no pages, when the grant carries no organisation scope", async () => {
    const { connect, data, fake } = await open()
    await connect()
    expect([...data.accounts.values()].map((one) => one.username)).toEqual(["Ada Lovelace"])
    expect(fake.calls.some((call) => call.startsWith("GET /rest/organizationAcls"))).toBe(false)
  })

  it("connects nothing when the pages cannot be listed (an app without rw_organization_admin)", async () => {
    const { connect, data } = await open({}, { scopes: [...memberScopes, "w_organization_social", "r_organization_social"] })
    await expect(connect()).rejects.toThrow(/linkedin refused the connection \(ACCESS_DENIED\)/)
    expect(data.accounts.size).toBe(0)
  })
})

describe("LinkedIn publishing", () => {
  it("posts text as little text that prints as written, and answers the post's feed URL", async () => {
    const { connect, fake, route } = await open()
    const { account } = await connect()
    const text = "Launch (beta) at 10:00 — ask @herald [docs] *now* ~ a_b <3 | {x} \\o/ #launch https://example.com/a_(b)#top"
    const published = await run(route.adapters.publisher.publish(request(account, text)))
    expect(published.url).toMatch(receiptUrl)
    const [post] = fake.livePosts()
    expect(post?.id).toBe(published.platformPostId)
    expect(post?.printed).toBe(text)
    expect(post?.commentary).toContain("\\(beta\\)")
    expect(post?.commentary).toContain(" #launch ")
    expect(post?.commentary).toContain("https://example.com/a_(b)#top")
  })

  it("uploads one image with its alt text, and several as a multi-image post", async () => {
    const { connect, fake, route, withBytes } = await open()
    const { account } = await connect()
    const one = withBytes(mediaItem("image", { altText: "a red kite" }), new Uint8Array([255, 216, 255, 1]))
    await run(route.adapters.publisher.publish(request(account, "one image", { media: [one] })))
    const [first] = fake.livePosts()
    expect(first?.content).toEqual({ media: { id: expect.stringMatching(/^urn:li:image:/), altText: "a red kite" } })

    const images = [1, 2, 3].map((n) => withBytes(mediaItem("image", n === 2 ? { altText: "second" } : {}), new Uint8Array([255, 216, n])))
    await run(route.adapters.publisher.publish(request(account, "three images", { media: images })))
    const multi = fake.livePosts()[1]?.content as { multiImage: { images: Array<{ id: string; altText?: string }> } }
    expect(multi.multiImage.images).toHaveLength(3)
    expect(multi.multiImage.images[1]?.altText).toBe("second")
    expect(multi.multiImage.images.map((image) => fake.media.get(image.id)?.bytes[2])).toEqual([1, 2, 3])
  })

  it("uploads a video part by part to each part's URL, finalises with the ETags and waits until it is AVAILABLE", async () => {
    const { connect, fake, route, withBytes } = await open({ videoPartBytes: 1000, videoProcessingReads: 2 })
    const { account } = await connect()
    const content = Uint8Array.from({ length: 2500 }, (_, i) => i % 251)
    const video = withBytes(mediaItem("video"), content)
    await drive(route.adapters.publisher.publish(request(account, "a video", { media: [video] })))
    const [post] = fake.livePosts()
    const id = (post?.content as { media: { id: string } }).media.id
    expect(id).toMatch(/^urn:li:video:/)
    expect(Buffer.compare(fake.media.get(id)!.bytes, Buffer.from(content))).toBe(0)
    expect(fake.calls.filter((call) => call.startsWith("PUT /dms-uploads/"))).toHaveLength(3)
    expect(fake.calls.filter((call) => call.startsWith("GET /rest/videos/"))).toHaveLength(3)
  })

  it("refuses a video LinkedIn could not process as media_rejected, creating no post", async () => {
    const { connect, fake, route, withBytes } = await open({ videoPartBytes: 1000 })
    const { account } = await connect()
    fake.failVideoProcessing()
    const video = withBytes(mediaItem("video"), new Uint8Array(1500))
    const failure = await fail(route.adapters.publisher.publish(request(account, "broken video", { media: [video] })))
    expect(failure).toMatchObject({ _tag: "PublishFailed", error: { category: "media_rejected", code: "PROCESSING_FAILED" }, transient: false })
    expect(fake.livePosts()).toEqual([])
  })

  it("posts a PDF document under its document_title, or its file name", async () => {
    const { connect, fake, route, withBytes } = await open()
    const { account } = await connect()
    const titled = withBytes(mediaItem("document", { filename: "q3.pdf" }), pdfBytes)
    await run(route.adapters.publisher.publish(request(account, "Q3 report", { media: [titled], configuration: { document_title: "Q3 in numbers" } })))
    const untitled = withBytes(mediaItem("document", { filename: "deck.pdf" }), pdfBytes)
    await run(route.adapters.publisher.publish(request(account, "The deck", { media: [untitled] })))
    const [first, second] = fake.livePosts()
    expect(first?.content).toEqual({ media: { id: expect.stringMatching(/^urn:li:document:/), title: "Q3 in numbers" } })
    expect((second?.content as { media: { title: string } }).media.title).toBe("deck.pdf")
  })

  it("maps LinkedIn's refusals: duplicate and over-long commentary (content_rejected), a file LinkedIn refuses (media_rejected)", async () => {
    const { connect, fake, route, withBytes } = await open()
    const { account } = await connect()
    await run(route.adapters.publisher.publish(request(account, "same words")))
    const duplicate = await fail(route.adapters.publisher.publish(request(account, "same words")))
    expect(duplicate).toMatchObject({ _tag: "PublishFailed", error: { category: "content_rejected", code: "DUPLICATE_POST" }, transient: false })
    expect(duplicate._tag === "PublishFailed" && duplicate.error.message).toContain(fake.livePosts()[0]!.id)

    const long = await fail(route.adapters.publisher.publish(request(account, "x".repeat(3001))))
    expect(long).toMatchObject({ error: { category: "content_rejected", code: "MAX_LENGTH_EXCEEDED" } })

    const notPdf = withBytes(mediaItem("document"), new TextEncoder().encode("GIF89a"))
    const media = await fail(route.adapters.publisher.publish(request(account, "bad file", { media: [notPdf] })))
    expect(media).toMatchObject({ error: { category: "media_rejected" }, transient: false })
    expect(fake.livePosts()).toHaveLength(1)
  })

  it("sends the pinned LinkedIn-Version; a version LinkedIn no longer serves is permission_missing, not retried", async () => {
    const { connect, route } = await open({ activeVersions: (version) => version !== linkedinVersion })
    const { account } = await connect()
    const failure = await fail(route.adapters.publisher.publish(request(account, "hello")))
    expect(failure).toMatchObject({ error: { category: "permission_missing", code: "NONEXISTENT_VERSION" }, transient: false })
  })

  it("the fake refuses a REST call without LinkedIn-Version or the Rest.li protocol header, as LinkedIn does", async () => {
    const { fake } = await open()
    const token = fake.issueToken(memberScopes)
    const noVersion = await fetch(`${fake.url}/rest/posts?q=author&author=urn%3Ali%3Aperson%3Ax`, { headers: { authorization: `Bearer ${token}` } })
    expect(noVersion.status).toBe(400)
    expect(await noVersion.json()).toMatchObject({ status: 400, code: "VERSION_MISSING" })
    const noProtocol = await fetch(`${fake.url}/rest/posts?q=author&author=x`, { headers: { authorization: `Bearer ${token}`, "linkedin-version": linkedinVersion } })
    expect(noProtocol.status).toBe(400)
    const noToken = await fetch(`${fake.url}/v2/userinfo`)
    expect(await noToken.json()).toEqual({ status: 401, serviceErrorCode: 65604, code: "EMPTY_ACCESS_TOKEN", message: "Empty oauth2_access_token" })
  })

  it("rate limits: LinkedIn's Retry-After when sent, otherwise an hour at most (its quotas reset at 00:00 UTC)", async () => {
    const { connect, fake, route } = await open()
    const { account } = await connect()
    fake.failNext({ status: 429, body: { status: 429, serviceErrorCode: 101, code: "TOO_MANY_REQUESTS", message: "Resource level throttle limit reached" } })
    const daily = await fail(route.adapters.publisher.publish(request(account, "a")))
    expect(daily).toMatchObject({ error: { category: "rate_limited", code: "TOO_MANY_REQUESTS" }, transient: true })
    const waited = daily._tag === "PublishFailed" ? daily.retryAfterMs! : -1
    expect(waited).toBeGreaterThan(0)
    expect(waited).toBeLessThanOrEqual(3600_000)
    fake.failNext({ status: 429, headers: { "retry-after": "120" }, body: { status: 429, message: "slow down" } })
    expect(await fail(route.adapters.publisher.publish(request(account, "b")))).toMatchObject({ retryAfterMs: 120_000 })
  })

  it("a 5xx is transient; a gateway timeout on the create, or a post answered without its id, is an unknown outcome", async () => {
    const { connect, fake, route } = await open()
    const { account } = await connect()
    fake.failNext({ status: 503, body: { status: 503, message: "Service Unavailable" } })
    expect(await fail(route.adapters.publisher.publish(request(account, "a")))).toMatchObject({ _tag: "PublishFailed", error: { category: "transient" }, transient: true })
    fake.failNext({ status: 504, body: { status: 504, message: "Gateway Timeout" } })
    expect(await fail(route.adapters.publisher.publish(request(account, "c")))).toMatchObject({ _tag: "OutcomeUnknown" })
    fake.failNext({ status: 201, body: "" })
    expect(await fail(route.adapters.publisher.publish(request(account, "b")))).toMatchObject({ _tag: "OutcomeUnknown" })
  })

  it.each([
    ["the connection drops after LinkedIn acted", (fake: Harness["fake"]) => fake.loseAnswerNext()],
    ["the answer never comes", (fake: Harness["fake"]) => fake.hangNext()]
  ])("a create whose %s is an unknown outcome; reconcile then finds the post, so it is not posted twice", async (_case, lose) => {
    const { connect, fake, route, routeWithin } = await open({}, { scopes: [...memberScopes, "r_member_social"] })
    const { account } = await connect()
    // A text post is one call, the one that loses its answer: no answered call runs on this route.
    const losing = await routeWithin(hungCallDeadlines)
    const delivery = request(account, "only once (really)")
    lose(fake)
    expect(await fail(losing.adapters.publisher.publish(delivery))).toMatchObject({ _tag: "OutcomeUnknown" })
    expect(fake.livePosts()).toHaveLength(1)
    const found = await run(route.adapters.publisher.reconcile!(delivery))
    expect(Option.getOrThrow(found)).toEqual({ platformPostId: fake.livePosts()[0]!.id, url: expect.stringMatching(receiptUrl), note: null })
    expect(fake.livePosts()).toHaveLength(1)
  })

  it("reconcile finds nothing for a delivery LinkedIn never got, nor for another text or kind of content", async () => {
    const { connect, route, withBytes } = await open({}, { scopes: [...memberScopes, "r_member_social"] })
    const { account } = await connect()
    await run(route.adapters.publisher.publish(request(account, "posted words")))
    expect(Option.isNone(await run(route.adapters.publisher.reconcile!(request(account, "other words"))))).toBe(true)
    const image = withBytes(mediaItem("image"), new Uint8Array([1]))
    expect(Option.isNone(await run(route.adapters.publisher.reconcile!(request(account, "posted words", { media: [image] }))))).toBe(true)
    expect(Option.isSome(await run(route.adapters.publisher.reconcile!(request(account, "posted words"))))).toBe(true)
  })

  it("takes a post down; a post already gone is AlreadyGone", async () => {
    const { connect, fake, route } = await open()
    const { account } = await connect()
    const published = await run(route.adapters.publisher.publish(request(account, "to be removed")))
    await run(route.adapters.publisher.takedown!(account, published.platformPostId))
    expect(fake.livePosts()).toEqual([])
    expect(fake.calls).toContain(`DELETE /rest/posts/${encodeURIComponent(published.platformPostId)}`)
    expect(await fail(route.adapters.publisher.takedown!(account, published.platformPostId))).toMatchObject({ _tag: "AlreadyGone" })
  })
})

describe("LinkedIn tokens", () => {
  it("an expired token without a refresh token is auth_expired and the account needs reconnecting; a reconnect then succeeds", async () => {
    const { connect, fake, route, status } = await open()
    const { account } = await connect()
    fake.expireToken()
    const failure = await fail(route.adapters.publisher.publish(request(account, "after expiry")))
    expect(failure).toMatchObject({ _tag: "PublishFailed", error: { category: "auth_expired", code: "no_refresh_token" }, transient: false })
    expect(status(account)).toBe("needs_reconnect")
    expect(fake.livePosts()).toEqual([])

    // Reconnect: the member goes through the consent page again, and the same account comes back.
    const again = await connect()
    expect(again.account).toMatchObject({ id: account.id, status: "active" })
    const published = await run(route.adapters.publisher.publish(request(account, "after expiry")))
    expect(published.url).toMatch(receiptUrl)
  })

  it("an expired token is refreshed once (partner apps) and the call made again", async () => {
    const { connect, data, fake, route } = await open({ refreshTokens: true })
    const { account, credentials } = await connect()
    expect(credentials["refresh_token"]).toEqual(expect.any(String))
    fake.expireToken()
    await run(route.adapters.publisher.publish(request(account, "after refresh")))
    expect(fake.tokenCalls).toEqual(["authorization_code", "refresh_token"])
    const renewed = data.credentials.get(account.id)!
    expect(renewed["access_token"]).not.toBe(credentials["access_token"])
    expect(renewed).toMatchObject({ refresh_token: credentials["refresh_token"], author_urn: credentials["author_urn"] })
    expect(fake.livePosts()).toHaveLength(1)
  })

  it("a grant the member revoked fails its refresh too: auth_expired, the account needs reconnecting", async () => {
    const { connect, fake, route, status } = await open({ refreshTokens: true })
    const { account } = await connect()
    fake.revokeGrant()
    expect(await fail(route.adapters.publisher.publish(request(account, "revoked")))).toMatchObject({
      _tag: "PublishFailed",
      error: { category: "auth_expired", code: "invalid_grant" },
      transient: false
    })
    expect(status(account)).toBe("needs_reconnect")
    expect(fake.controls().refreshes()).toBe(0)
  })

  it("a scope the member took back is permission_missing", async () => {
    const { connect, fake, route } = await open()
    const { account } = await connect()
    fake.revokeScope("w_member_social")
    expect(await fail(route.adapters.publisher.publish(request(account, "no scope")))).toMatchObject({
      error: { category: "permission_missing", code: "ACCESS_DENIED" },
      transient: false
    })
  })
})

describe("LinkedIn metrics and probe", () => {
  it("maps an organisation post's share statistics onto Herald's names (null where LinkedIn has none)", async () => {
    const { connect, fake, page, route } = await open({}, { scopes: [...memberScopes, ...organizationScopes] })
    await connect()
    const account = page("devtestco")
    const published = await run(route.adapters.publisher.publish(request(account, "from the page")))
    expect(fake.livePosts()[0]?.author).toBe("urn:li:organization:2414183")
    fake.statistics.set(published.platformPostId, { impressionCount: 120, uniqueImpressionsCount: 80, likeCount: 7, commentCount: 2, shareCount: 1, clickCount: 9 })
    const reading = await run(route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId }))
    expect(reading).toEqual({
      _tag: "Reported",
      metrics: { views: 120, reach: 80, likes: 7, comments: 2, shares: 1, saves: null, clicks: 9, videoViews: null }
    })
  })

  it("reads a member post's analytics with r_member_postAnalytics, and reports none without it", async () => {
    const withScope = await open({}, { scopes: [...memberScopes, "r_member_postAnalytics"] })
    const { account } = await withScope.connect()
    const published = await run(withScope.route.adapters.publisher.publish(request(account, "member post")))
    withScope.fake.statistics.set(published.platformPostId, { impressionCount: 50, uniqueImpressionsCount: 40, likeCount: 3, commentCount: 1, shareCount: 0 })
    expect(await run(withScope.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId }))).toEqual({
      _tag: "Reported",
      metrics: { views: 50, reach: 40, likes: 3, comments: 1, shares: 0, saves: null, clicks: null, videoViews: null }
    })
    await withScope.stop()

    const without = await open()
    const member = await without.connect()
    const post = await run(without.route.adapters.publisher.publish(request(member.account, "member post")))
    expect(await run(without.route.adapters.metrics!.fetch({ account: member.account, platformPostId: post.platformPostId }))).toMatchObject({
      _tag: "Unreportable",
      reason: "unsupported"
    })
  })

  it("probes: alive with the token's expiry and scopes; refused once the token expired", async () => {
    const { connect, fake, route } = await open()
    const { account } = await connect()
    const health = await run(route.adapters.probe!.check(account))
    if (health._tag !== "Alive") throw new Error(`expected Alive, got ${health._tag}`)
    expect(health.granted).toEqual(["openid", "profile", "w_member_social"])
    expect(health.needed).toEqual(["w_member_social"])
    expect(health.expiresAt === null ? 0 : health.expiresAt.epochMillis - Date.now()).toBeGreaterThan(59 * 24 * 3600 * 1000)
    fake.expireToken()
    const refused = await run(route.adapters.probe!.check(account))
    expect(ConnectionHealth.$is("Refused")(refused)).toBe(true)
  })
})
