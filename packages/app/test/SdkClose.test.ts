import * as Fs from "node:fs"
import type { Kit } from "@herald/publishers"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { Deferred, Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { createHerald } from "../src/Sdk.js"

const dataDirs: Array<string> = []
afterAll(() => dataDirs.forEach((dir) => Fs.rmSync(dir, { recursive: true, force: true })))

/** Bluesky's direct route with a publisher that holds each publish until `release` completes. */
const heldRoute = (started: Deferred.Deferred<void>, release: Deferred.Deferred<void>): Kit.DirectRoute => ({
  platform: "bluesky",
  defaults: { apiBaseUrl: "https://held.example", authBaseUrl: "https://held.example" },
  build: () =>
    Effect.succeed({
      adapters: {
        platform: "bluesky",
        route: "direct",
        metrics: null,
        probe: null,
        publisher: {
          publish: (request) =>
            Deferred.succeed(started, undefined).pipe(
              Effect.zipRight(Deferred.await(release)),
              Effect.as({ platformPostId: request.marker, url: `https://held.example/${request.marker}`, note: null })
            )
        }
      },
      login: {
        platform: "bluesky",
        login: ({ identifier }) => Effect.succeed({ credentials: {}, expiresAt: null, platformAccountId: `held:${identifier}`, username: identifier }),
        refresh: () => Effect.succeed({ credentials: {}, expiresAt: null })
      }
    })
})

/** A Herald whose Bluesky publishes are held, with one post claimed by its dispatcher and held mid-publish. */
const withClaimedDelivery = async () => {
  const dataDir = embeddedDataDir("herald-sdk-close-")
  dataDirs.push(dataDir)
  const started = Effect.runSync(Deferred.make<void>())
  const release = Effect.runSync(Deferred.make<void>())
  const herald = await createHerald({ publicUrl: "http://herald.test", dataDir, demo: true, routes: [heldRoute(started, release)] })
  const { project_id, human_key } = herald.demoCredentials!
  const account = await herald.admin.accounts.login({ path: { project_id }, payload: { platform: "bluesky", identifier: "held", password: "any" } })
  const post = await herald.api(human_key).posts.create({ payload: { caption: "Held mid-publish", social_accounts: [account.id] } })
  await Effect.runPromise(Deferred.await(started))
  return { herald, dataDir, post, release, humanKey: human_key }
}

describe("close() and the deliveries the workers claimed", () => {
  it("waits for a claimed delivery to finish, which then settles as a success", async () => {
    const { herald, dataDir, post, release, humanKey } = await withClaimedDelivery()
    let closed = false
    const closing = herald.close({ deadline: 20_000 }).then(() => (closed = true))
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(closed).toBe(false)
    Effect.runSync(Deferred.succeed(release, undefined))
    await closing
    // Reopened on the same data: the delivery finished before the database closed.
    const reopened = await createHerald({ publicUrl: "http://herald.test", dataDir })
    try {
      const receipt = await reopened.api(humanKey).deliveries.results({ urlParams: { post_id: post.id } })
      expect(receipt.data.map((row) => row.status)).toEqual(["success"])
    } finally {
      await reopened.close()
    }
  }, 60_000)

  it("stops waiting at the deadline when a delivery does not finish", async () => {
    const { herald } = await withClaimedDelivery()
    const began = Date.now()
    await herald.close({ deadline: 300 })
    expect(Date.now() - began).toBeGreaterThanOrEqual(300)
    expect(Date.now() - began).toBeLessThan(10_000)
  }, 60_000)
})
