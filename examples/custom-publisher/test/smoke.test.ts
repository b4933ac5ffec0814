import * as Fs from "node:fs"
import { createHerald } from "@herald/app"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { expect, it } from "vitest"
import { type OutboxPost, outboxRoute } from "../src/outboxRoute.js"

it("publishes through the plugged-in route: connected by login, delivered to the outbox, receipt a success", async () => {
  const dataDir = embeddedDataDir("herald-example-publisher-")
  const outbox: Array<OutboxPost> = []
  const herald = await createHerald({ publicUrl: "http://127.0.0.1", dataDir, demo: true, routes: [outboxRoute(outbox)] })
  try {
    const { project_id, human_key } = herald.demoCredentials!
    const account = await herald.admin.accounts.login({ path: { project_id }, payload: { platform: "bluesky", identifier: "team", password: "any" } })
    expect(account).toMatchObject({ platform: "bluesky", route: "direct", username: "team" })
    const api = herald.api(human_key)
    const post = await api.posts.create({ payload: { caption: "Shipped to the outbox", social_accounts: [account.id] } })
    let receipt = await api.deliveries.results({ urlParams: { post_id: post.id } })
    for (let tries = 0; receipt.data[0]?.status !== "success" && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      receipt = await api.deliveries.results({ urlParams: { post_id: post.id } })
    }
    expect(receipt.data[0]).toMatchObject({ status: "success" })
    expect(outbox).toEqual([{ id: receipt.data[0]!.id, account: "team", text: "Shipped to the outbox" }])
  } finally {
    await herald.close()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}, 60_000)
