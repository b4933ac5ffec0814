/**
 * Bluesky's direct route when the network misbehaves: the PDS is real, the faults come from a
 * proxy in front of it (answers it chooses, answers that never come, tokens that expire).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { PublishRequest, SocialAccount } from "@herald/core"
import { Effect, Either, Option } from "effect"
import { randomUUID } from "node:crypto"
import { type Connected, contractControls, type PdsHarness, png, readRecord, startPdsHarness } from "./PdsHarness.js"

let harness: PdsHarness
let erin: Connected

beforeAll(async () => {
  harness = await startPdsHarness()
  erin = await harness.connect("erin")
}, 30_000)

afterAll(async () => {
  await harness?.close()
})

const publishing = (account: SocialAccount, text: string, media: PublishRequest["media"] = []): PublishRequest => ({
  account,
  text,
  media,
  configuration: undefined,
  marker: randomUUID()
})

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

/** The posts in erin's repository whose text is `text`. */
const postsSaying = async (text: string) => {
  const response = await fetch(
    `${harness.pds.url}/xrpc/com.atproto.repo.listRecords?${new URLSearchParams({ repo: erin.local.did, collection: "app.bsky.feed.post", limit: "100" })}`
  )
  const listed = (await response.json()) as { records: Array<{ value: { text: string } }> }
  return listed.records.filter((record) => record.value.text === text)
}

describe("Bluesky direct route through faults", () => {
  // A connection cut after the PDS wrote the post: the same unknown outcome as an answer that never
  // comes, without waiting out the kit's 30-second publish deadline.
  it("a createRecord whose answer is lost is OutcomeUnknown; reconcile finds the one post, so none is posted twice", async () => {
    const request = publishing(erin.account, `lost answer ${randomUUID()}`)
    harness.proxy.dropNext("com.atproto.repo.createRecord")
    const lost = await run(harness.adapters.publisher.publish(request))
    expect(Either.isLeft(lost) && lost.left._tag).toBe("OutcomeUnknown")

    const found = await Effect.runPromise(harness.adapters.publisher.reconcile!(request))
    expect(Option.isSome(found)).toBe(true)
    expect(await postsSaying(request.text!)).toHaveLength(1)
    expect((await readRecord(harness.pds, Option.getOrThrow(found).platformPostId))!.value["dev.herald.marker"]).toBe(request.marker)
  })

  it("a malformed answer to createRecord is OutcomeUnknown", async () => {
    harness.proxy.failNext({ status: 200, body: "{\"uri\": 42" }, "com.atproto.repo.createRecord")
    const malformed = await run(harness.adapters.publisher.publish(publishing(erin.account, "malformed")))
    expect(Either.isLeft(malformed) && malformed.left._tag).toBe("OutcomeUnknown")
  })

  it("RateLimitExceeded with RateLimit-Reset is rate_limited with the wait until the reset", async () => {
    const reset = Math.floor(Date.now() / 1000) + 120
    harness.proxy.failNext({
      status: 429,
      body: { error: "RateLimitExceeded", message: "Rate Limit Exceeded" },
      headers: { "ratelimit-limit": "5000", "ratelimit-remaining": "0", "ratelimit-reset": String(reset), "ratelimit-policy": "5000;w=3600" }
    }, "com.atproto.repo.createRecord")
    const limited = await run(harness.adapters.publisher.publish(publishing(erin.account, "too fast")))
    expect(Either.isLeft(limited) && limited.left).toMatchObject({
      _tag: "PublishFailed",
      transient: true,
      error: { category: "rate_limited", code: "RateLimitExceeded", message: "Rate Limit Exceeded" }
    })
    const waitMs = Either.isLeft(limited) && limited.left._tag === "PublishFailed" ? limited.left.retryAfterMs! : 0
    expect(waitMs).toBeGreaterThan(100_000)
    expect(waitMs).toBeLessThanOrEqual(120_000)
  })

  it("a 5xx is transient; nothing was posted", async () => {
    const text = `server trouble ${randomUUID()}`
    harness.proxy.failNext({ status: 502, body: { error: "UpstreamFailure", message: "Upstream Failure" } }, "com.atproto.repo.createRecord")
    const failed = await run(harness.adapters.publisher.publish(publishing(erin.account, text)))
    expect(Either.isLeft(failed) && failed.left).toMatchObject({
      _tag: "PublishFailed",
      transient: true,
      error: { category: "transient", code: "UpstreamFailure" }
    })
    expect(await postsSaying(text)).toHaveLength(0)
  })

  it("BlobTooLarge on upload is media_rejected and not retried", async () => {
    harness.proxy.failNext({
      status: 400,
      body: { error: "BlobTooLarge", message: "This file is too large. It is 1.18MB but the maximum size is 976.56KB." }
    }, "com.atproto.repo.uploadBlob")
    const image = harness.media("image", png, { altText: "big" })
    const failed = await run(harness.adapters.publisher.publish(publishing(erin.account, "big picture", [image])))
    expect(Either.isLeft(failed) && failed.left).toMatchObject({
      _tag: "PublishFailed",
      transient: false,
      error: { category: "media_rejected", code: "BlobTooLarge" }
    })
  })

  it("an access token the PDS finds expired mid-use is renewed once and the call repeated", async () => {
    const before = harness.proxy.refreshes()
    harness.proxy.expireToken()
    const reading = await Effect.runPromise(harness.adapters.probe!.check(erin.account))
    expect(reading._tag).toBe("Alive")
    expect(harness.proxy.refreshes()).toBe(before + 1)
  })

  it("a metrics read without an answer is transient, its 5xx too", async () => {
    harness.proxy.failNext({ status: 503, body: { error: "NotEnoughResources", message: "try later" } }, "app.bsky.feed.getPosts")
    const failed = await run(harness.adapters.metrics!.fetch({ account: erin.account, platformPostId: `at://${erin.local.did}/app.bsky.feed.post/3l2aaaaaaaaaa` }))
    expect(Either.isLeft(failed) && failed.left.error).toMatchObject({ category: "transient", code: "NotEnoughResources" })
  })

  it("the contract's controls: posts as the PDS confirmed them, refreshes counted, a revoked grant is auth_expired", async () => {
    const frank = await harness.connect("frank")
    const fake = contractControls(harness, frank)
    const image = harness.media("image", png, { altText: "dot" })
    const published = await Effect.runPromise(harness.adapters.publisher.publish(publishing(frank.account, "with a picture", [image])))
    expect(fake.posts()).toContainEqual({ id: published.platformPostId, text: "with a picture", media: 1 })

    const refreshed = fake.refreshes()
    fake.expireToken()
    await Effect.runPromise(harness.adapters.publisher.takedown!(frank.account, published.platformPostId))
    expect(fake.refreshes()).toBe(refreshed + 1)
    expect(fake.posts().map((post) => post.id)).not.toContain(published.platformPostId)

    fake.revokeGrant()
    const refused = await run(harness.adapters.publisher.publish(publishing(frank.account, "after revocation")))
    expect(Either.isLeft(refused) && refused.left).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "auth_expired" } })
    expect(fake.refreshes()).toBe(refreshed + 1)
  })
})
