/**
 * Bluesky's direct route against a real PDS (@atproto/pds on loopback): what lands in the
 * repository, sessions that expire and renew, refusals in Herald's taxonomy.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { PublishRequest, SocialAccount } from "@herald/core"
import { Effect, Either, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { type Connected, contractControls, mp4, type PdsHarness, png, readBlob, readRecord, startPdsHarness } from "./PdsHarness.js"

let harness: PdsHarness
let alice: Connected
let bob: Connected

beforeAll(async () => {
  harness = await startPdsHarness()
  alice = await harness.connect("alice")
  bob = await harness.connect("bob")
}, 30_000)

afterAll(async () => {
  await harness?.close()
})

const publishing = (account: SocialAccount, text: string | null, media: PublishRequest["media"] = []): PublishRequest => ({
  account,
  text,
  media,
  configuration: undefined,
  marker: randomUUID()
})

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))
const publish = (request: PublishRequest) => Effect.runPromise(harness.adapters.publisher.publish(request))

/** The text a facet covers, cut out of the UTF-8 bytes. */
const covered = (text: string, index: { byteStart: number; byteEnd: number }) =>
  Buffer.from(text, "utf8").subarray(index.byteStart, index.byteEnd).toString("utf8")

describe("Bluesky direct route on a real PDS", () => {
  it("publishes the exact text with link, mention and hashtag facets at UTF-8 byte offsets, and a card from the page's OpenGraph tags with its image as thumb", async () => {
    const link = harness.pageUrl
    const text = `Grüße 👨‍👩‍👧 an @bob.test! Lies ${link} #Frühling @nobody.test`
    const request = publishing(alice.account, text)
    const published = await publish(request)

    const [, , did, collection, rkey] = published.platformPostId.split("/")
    expect([did, collection]).toEqual([alice.local.did, "app.bsky.feed.post"])
    expect(published.url).toBe(`https://bsky.app/profile/alice.test/post/${rkey}`)

    const record = await readRecord(harness.pds, published.platformPostId)
    expect(record!.value.text).toBe(text)
    const facets = record!.value.facets as Array<{ index: { byteStart: number; byteEnd: number }; features: Array<Record<string, string>> }>
    expect(facets.map((facet) => [covered(text, facet.index), facet.features])).toEqual([
      ["@bob.test", [{ $type: "app.bsky.richtext.facet#mention", did: bob.local.did }]],
      [link, [{ $type: "app.bsky.richtext.facet#link", uri: link }]],
      ["#Frühling", [{ $type: "app.bsky.richtext.facet#tag", tag: "Frühling" }]]
    ])
    const embed = record!.value.embed as { $type: string; external: { thumb: { ref: { $link: string }; mimeType: string } } }
    expect(embed).toMatchObject({
      $type: "app.bsky.embed.external",
      external: { uri: link, title: "Spring & the garden", description: "What grows first, and why.", thumb: { mimeType: "image/png" } }
    })
    expect(await readBlob(harness.pds, alice.local.did, embed.external.thumb.ref.$link)).toEqual(png)
    expect(record!.value["dev.herald.marker"]).toBe(request.marker)
  })

  it("uploads images as blobs with their alt text and aspect ratio", async () => {
    const first = harness.media("image", png, { altText: "A red dot on white", width: 1200, height: 800 })
    const second = harness.media("image", png, { altText: null })
    const published = await publish(publishing(alice.account, "two pictures https://example.com", [first, second]))

    const record = await readRecord(harness.pds, published.platformPostId)
    const embed = record!.value.embed as { $type: string; images: Array<{ alt: string; aspectRatio?: unknown; image: { ref: { $link: string }; mimeType: string } }> }
    expect(embed.$type).toBe("app.bsky.embed.images")
    expect(embed.images.map((image) => [image.alt, image.aspectRatio, image.image.mimeType])).toEqual([
      ["A red dot on white", { width: 1200, height: 800 }, "image/png"],
      ["", undefined, "image/png"]
    ])
    for (const image of embed.images) {
      expect(await readBlob(harness.pds, alice.local.did, image.image.ref.$link)).toEqual(png)
    }
  })

  it("uploads a video as a blob and embeds it as app.bsky.embed.video", async () => {
    const video = harness.media("video", mp4, { altText: "A short clip", width: 1920, height: 1080 })
    const published = await publish(publishing(alice.account, "a clip", [video]))

    const record = await readRecord(harness.pds, published.platformPostId)
    const embed = record!.value.embed as { $type: string; alt: string; aspectRatio: unknown; video: { ref: { $link: string }; mimeType: string } }
    expect([embed.$type, embed.alt, embed.aspectRatio, embed.video.mimeType]).toEqual([
      "app.bsky.embed.video",
      "A short clip",
      { width: 1920, height: 1080 },
      "video/mp4"
    ])
    expect(await readBlob(harness.pds, alice.local.did, embed.video.ref.$link)).toEqual(mp4)
  })

  it("finds a published post again by its marker, and nothing for a marker it never carried", async () => {
    const request = publishing(alice.account, "reconcile me")
    const published = await publish(request)
    const found = await Effect.runPromise(harness.adapters.publisher.reconcile!(request))
    expect(Option.getOrNull(found)).toEqual(published)
    const none = await Effect.runPromise(harness.adapters.publisher.reconcile!({ ...request, marker: randomUUID() }))
    expect(Option.isNone(none)).toBe(true)
  })

  it("deletes the record on takedown; a second takedown finds it already gone", async () => {
    const published = await publish(publishing(alice.account, "short-lived"))
    expect(await readRecord(harness.pds, published.platformPostId)).not.toBeNull()

    await Effect.runPromise(harness.adapters.publisher.takedown!(alice.account, published.platformPostId))
    expect(await readRecord(harness.pds, published.platformPostId)).toBeNull()

    const again = await run(harness.adapters.publisher.takedown!(alice.account, published.platformPostId))
    expect(Either.isLeft(again) && again.left._tag).toBe("AlreadyGone")
  })

  it("refuses text over 300 graphemes as content_rejected, and accepts 300 emoji families", async () => {
    const over = await run(harness.adapters.publisher.publish(publishing(alice.account, "👍".repeat(301))))
    expect(Either.isLeft(over) && over.left).toMatchObject({
      _tag: "PublishFailed",
      transient: false,
      error: { category: "content_rejected", code: "InvalidRequest" }
    })
    const atLimit = await run(harness.adapters.publisher.publish(publishing(alice.account, "👍".repeat(300))))
    expect(Either.isRight(atLimit)).toBe(true)
  })

  it("renews an expired session once with the refresh token and publishes", async () => {
    const carol = await harness.connect("carol")
    const held = harness.credentials(carol.account)
    const refreshes = harness.proxy.refreshes()
    harness.proxy.expireToken()

    const published = await publish(publishing(carol.account, "after the session expired"))
    expect(harness.proxy.refreshes()).toBe(refreshes + 1)
    expect((await readRecord(harness.pds, published.platformPostId))!.value.text).toBe("after the session expired")
    expect(harness.credentials(carol.account).refresh_token).not.toBe(held.refresh_token)
  })

  it("fails auth_expired once the app password is revoked and the session expires; the account needs a reconnect", async () => {
    const dave = await harness.connect("dave")
    contractControls(harness, dave).revokeGrant()

    const failed = await run(harness.adapters.publisher.publish(publishing(dave.account, "never lands")))
    expect(Either.isLeft(failed) && failed.left).toMatchObject({
      _tag: "PublishFailed",
      transient: false,
      error: { category: "auth_expired", code: "ExpiredToken" }
    })
    expect(harness.reload(dave.account).status).toBe("needs_reconnect")
    const health = await Effect.runPromise(harness.adapters.probe!.check(dave.account))
    expect(health).toMatchObject({ _tag: "Refused", code: "ExpiredToken" })
  })

  it("a reconnect with a new app password makes the same account active again", async () => {
    const ed = await harness.connect("edward")
    contractControls(harness, ed).revokeGrant()
    await run(harness.adapters.publisher.publish(publishing(ed.account, "refused")))
    expect(harness.reload(ed.account).status).toBe("needs_reconnect")

    const again = await harness.reconnect(ed)
    expect(again.id).toBe(ed.account.id)
    expect(harness.reload(ed.account).status).toBe("active")
    const published = await publish(publishing(again, "back again"))
    expect((await readRecord(harness.pds, published.platformPostId))!.value.text).toBe("back again")
  })

  it("probes a live session: alive, with its expiry about two hours ahead and no scopes to miss", async () => {
    const health = await Effect.runPromise(harness.adapters.probe!.check(alice.account))
    expect(health._tag).toBe("Alive")
    if (health._tag !== "Alive") return
    const hoursAhead = (health.expiresAt!.epochMillis - Date.now()) / 3_600_000
    expect(hoursAhead).toBeGreaterThan(1.5)
    expect(hoursAhead).toBeLessThanOrEqual(2)
    expect([health.granted, health.needed]).toEqual([[], []])
  })

  it("a deactivated account: the probe says Refused with its status, and a new login is refused", async () => {
    const gina = await harness.connect("gina")
    const appPassword = await harness.pds.createAppPassword(gina.local, "again")
    await harness.pds.deactivate(gina.local)

    const health = await Effect.runPromise(harness.adapters.probe!.check(gina.account))
    expect(health).toMatchObject({ _tag: "Refused", code: "deactivated" })
    const login = await run(harness.login.login({ identifier: "gina.test", password: Redacted.make(appPassword) }))
    expect(Either.isLeft(login) && login.left.error).toMatchObject({ category: "auth_expired", code: "deactivated" })
  })

  it("refuses a wrong password as auth_expired (AuthenticationRequired)", async () => {
    const refused = await run(harness.login.login({ identifier: "alice.test", password: Redacted.make("wrong") }))
    expect(Either.isLeft(refused) && refused.left.error).toMatchObject({ category: "auth_expired", code: "AuthenticationRequired" })
  })

  it("reads like, repost, quote and reply counts through the PDS's AppView proxy; a deleted post is unreportable", async () => {
    const published = await publish(publishing(alice.account, "count me"))
    harness.appView.setCounts(published.platformPostId, { likeCount: 5, repostCount: 2, quoteCount: 1, replyCount: 3 })

    const reading = await Effect.runPromise(harness.adapters.metrics!.fetch({ account: alice.account, platformPostId: published.platformPostId }))
    expect(reading).toEqual({
      _tag: "Reported",
      metrics: { views: null, reach: null, likes: 5, comments: 3, shares: 3, saves: null, clicks: null, videoViews: null }
    })
    // The PDS, not Herald, spoke to the AppView: with a service token of its own.
    expect(harness.appView.authorizations.at(-1)).toMatch(/^Bearer ey/)

    await Effect.runPromise(harness.adapters.publisher.takedown!(alice.account, published.platformPostId))
    const gone = await Effect.runPromise(harness.adapters.metrics!.fetch({ account: alice.account, platformPostId: published.platformPostId }))
    expect(gone._tag).toBe("Unreportable")
  })

  it("refuses a takedown of a post id that is not an at-uri as not_found", async () => {
    const refused = await run(harness.adapters.publisher.takedown!(alice.account, "not-a-uri"))
    expect(Either.isLeft(refused) && refused.left).toMatchObject({ _tag: "PublishFailed", error: { category: "not_found" } })
  })
})
