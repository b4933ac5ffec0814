import * as Fs from "node:fs"
import type { Kit } from "@herald/publishers"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { PublishFailed } from "@herald/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DeliveryNotFailed, DeliveryNotFound, DeliveryTakenDown, HeraldError, InvalidRequest } from "../src/index.js"
import { createHerald, type Herald } from "../src/Sdk.js"

/**
 * The parts of createHerald()'s surface Sdk.test.ts does not walk: bulk, media upload, and a
 * delivery's retry and takedown, each resolving with REST's reply or rejecting with its class.
 * A route of the test's own (Bluesky's direct route replaced) refuses the first publish for good,
 * so there is a failed delivery to retry, then publishes and takes down.
 */
let herald: Herald
let humanKey: string
let accountId: string
const dataDir = embeddedDataDir("herald-sdk-surface-")
const published = new Set<string>()
let publishes = 0

const flakyRoute: Kit.DirectRoute = {
  platform: "bluesky",
  defaults: { apiBaseUrl: "https://flaky.example", authBaseUrl: "https://flaky.example" },
  build: () =>
    Effect.succeed({
      adapters: {
        platform: "bluesky",
        route: "direct",
        metrics: null,
        probe: null,
        publisher: {
          publish: (request) =>
            publishes++ === 0
              ? Effect.fail(new PublishFailed({ error: { category: "content_rejected", code: "first_refused", message: "the first publish is refused" }, transient: false, retryAfterMs: null }))
              : Effect.sync(() => {
                published.add(request.marker)
                return { platformPostId: request.marker, url: `https://flaky.example/${request.marker}`, note: null }
              }),
          takedown: (_account, id) => Effect.sync(() => void published.delete(id))
        }
      },
      login: {
        platform: "bluesky",
        login: ({ identifier }) => Effect.succeed({ credentials: {}, expiresAt: null, platformAccountId: `flaky:${identifier}`, username: identifier }),
        refresh: () => Effect.succeed({ credentials: {}, expiresAt: null })
      }
    })
}

/** A 1×1 PNG. */
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")

const rejection = (call: Promise<unknown>) => call.then(() => null, (failure: unknown) => failure)

/** Reads the post's receipt until its one delivery has the status (the workers publish in the background). */
const receiptWith = async (postId: string, status: string) => {
  for (let i = 0; i < 200; i++) {
    const receipt = await herald.api(humanKey).deliveries.results({ urlParams: { post_id: postId } })
    if (receipt.data[0]?.status === status) return receipt
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`post ${postId}'s delivery never became ${status}`)
}

beforeAll(async () => {
  herald = await createHerald({ publicUrl: "http://herald.test", dataDir, demo: true, routes: [flakyRoute] })
  humanKey = herald.demoCredentials!.human_key
  const projectId = herald.demoCredentials!.project_id
  accountId = (await herald.admin.accounts.login({ path: { project_id: projectId }, payload: { platform: "bluesky", identifier: "flaky", password: "any" } })).id
}, 60_000)
afterAll(async () => {
  await herald?.close()
  Fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("createHerald(): bulk, media, retry and takedown in process", () => {
  it("posts.bulk answers one result per row; a bad row is its code, not a rejection", async () => {
    // Rows are typed unknown (each row is decoded on its own, so one bad row fails alone): the
    // contract's row fields are caption, accounts, scheduled_at, media_urls, idempotency_key.
    const result = await herald.api(humanKey).posts.bulk({
      payload: { rows: [{ caption: "Bulk, later", accounts: ["x:herald_demo"], scheduled_at: "2036-01-01T09:00:00Z" }, { caption: "", accounts: [] }] }
    })
    expect(result).toMatchObject({ created: 1, failed: 1 })
    expect(result.results.map((row) => row.row)).toEqual([0, 1])
    expect(result.results[0]).toMatchObject({ code: "created", status: "scheduled" })
    expect(result.results[1]).toMatchObject({ code: "validation_failed", id: null })
  })

  it("media.upload takes a FormData and answers the media id; a post carries it", async () => {
    const form = new FormData()
    form.append("file", new Blob([png], { type: "image/png" }), "dot.png")
    const media = await herald.api(humanKey).media.upload({ payload: form })
    expect(media).toMatchObject({ kind: "image" })
    const post = await herald.api(humanKey).posts.create({
      payload: { caption: "With a picture", social_accounts: ["x:herald_demo"], media_ids: [media.id], is_draft: true }
    })
    expect(post.status).toBe("draft")
  })

  it("deliveries.retry re-sends a failed delivery, deliveries.takedown removes the live post; refusals are their classes", async () => {
    const api = herald.api(humanKey)
    const post = await api.posts.create({ payload: { caption: "Refused once", social_accounts: [accountId] } })
    const failed = await receiptWith(post.id, "failed")
    const delivery = failed.data[0]!
    expect(delivery.error).toMatchObject({ code: "first_refused" })

    expect(await api.deliveries.retry({ path: { id: delivery.id } })).toMatchObject({ id: delivery.id, post_id: post.id })
    await receiptWith(post.id, "success")
    expect(await rejection(api.deliveries.retry({ path: { id: delivery.id } }))).toBeInstanceOf(DeliveryNotFailed)

    const taken = await api.deliveries.takedown({ path: { id: delivery.id } })
    expect(taken).toMatchObject({ id: delivery.id, post_id: post.id })
    expect(typeof taken.taken_down_at).toBe("string")
    expect(published.size).toBe(0)
    const again = await rejection(api.deliveries.takedown({ path: { id: delivery.id } }))
    expect(again).toBeInstanceOf(DeliveryTakenDown)
    expect(again).toBeInstanceOf(HeraldError)
    expect(again).toMatchObject({ code: "delivery_taken_down", status: 409 })

    expect(await rejection(api.deliveries.retry({ path: { id: "00000000-0000-4000-8000-000000000000" } }))).toBeInstanceOf(DeliveryNotFound)
    expect(await rejection(api.deliveries.takedown({ path: { id: "not-a-uuid" } }))).toBeInstanceOf(InvalidRequest)
  }, 60_000)
})
