import type { ChildProcess } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listening, runHerald, stopHerald } from "./HeraldProcess.js"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"
import { json, tempDataDir } from "./TestHerald.js"

/**
 * The scale-out shape: API processes with HERALD_WORKERS=false and a separate `herald work`
 * process on one PostgreSQL database. The API process publishes nothing itself; the worker
 * process does, and reports itself in GET /health through the shared heartbeats.
 */
const running: Array<ChildProcess> = []
const dataDir = tempDataDir()

describe.skipIf(databaseUrl === "")("API and workers in separate processes (skipped without DATABASE_URL: needs PostgreSQL)", () => {
  let schema: Awaited<ReturnType<typeof throwawaySchema>>
  beforeAll(async () => {
    schema = await throwawaySchema("herald_scaleout")
  })
  afterAll(async () => {
    await Promise.all(running.map(stopHerald))
    await schema?.drop()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("an API-only server leaves publishing to `herald work`, which publishes and beats", async () => {
    const env = { DATABASE_URL: schema.url, HERALD_DATA_DIR: dataDir, PORT: "0" }
    const api = await runHerald("serve", { ...env, HERALD_WORKERS: "false" }, listening)
    running.push(api.child)
    const origin = `http://127.0.0.1:${api.ready}`
    const credentials = JSON.parse(Fs.readFileSync(Path.join(dataDir, "credentials.json"), "utf8"))
    const call = (path: string, body?: unknown) =>
      fetch(`${origin}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${credentials.human_key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })

    const created = await json(await call("/api/v1/posts", { caption: "Shipped from a split deployment", social_accounts: ["bluesky:herald_demo"] }))
    expect(created.status).toBe("processing")
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const waiting = await json(await call(`/api/v1/post-results?post_id=${created.id}`))
    expect(waiting.data.map((row: { status: string }) => row.status)).toEqual(["queued"])
    expect((await json(await call("/health"))).workers).toEqual([])

    const worker = await runHerald("work", env, /workers are running/)
    running.push(worker.child)
    const deadline = Date.now() + 30_000
    let receipt = waiting
    while (Date.now() < deadline && receipt.post_status !== "posted") {
      await new Promise((resolve) => setTimeout(resolve, 250))
      receipt = await json(await call(`/api/v1/post-results?post_id=${created.id}`))
    }
    expect(receipt.post_status).toBe("posted")
    expect(receipt.data[0]).toMatchObject({ status: "success", url: expect.stringMatching(/^https:\/\//) })
    const health = await json(await call("/health"))
    expect(new Set(health.workers.map((w: { kind: string }) => w.kind))).toEqual(new Set(["approval-notifier", "connection-checker", "dispatcher", "metrics", "webhooks"]))
  }, 120_000)
})
