import type { ChildProcess } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { afterAll, expect, it } from "vitest"
import { listening, runHerald, stopHerald } from "./HeraldProcess.js"
import { json, tempDataDir } from "./TestHerald.js"

interface Served {
  readonly child: ChildProcess
  readonly origin: string
  readonly output: () => string
}

/** `herald serve` (what `npm start` runs) on the embedded store in dataDir, on a free port. */
const serve = (dataDir: string): Promise<Served> =>
  runHerald("serve", { HERALD_DATA_DIR: dataDir, PORT: "0", DATABASE_URL: "" }, listening).then((started) => ({
    child: started.child,
    origin: `http://127.0.0.1:${started.ready}`,
    output: started.output
  }))

const stop = stopHerald

const dataDir = tempDataDir()
const running: Array<ChildProcess> = []
afterAll(async () => {
  await Promise.all(running.map(stop))
  Fs.rmSync(dataDir, { recursive: true, force: true })
})

it("follows docs/quickstart.md: first start, agent post held, human approval, posted through the simulator", async () => {
  const first = await serve(dataDir)
  running.push(first.child)
  const credentials = JSON.parse(Fs.readFileSync(Path.join(dataDir, "credentials.json"), "utf8"))
  expect(Fs.statSync(Path.join(dataDir, "credentials.json")).mode & 0o777).toBe(0o600)
  for (const secret of [credentials.admin_token, credentials.human_key, credentials.agent_key]) {
    expect(first.output()).toContain(secret)
  }
  let origin = first.origin
  const call = (path: string, key: string, body?: unknown) =>
    fetch(`${origin}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })

  const accounts = await json(await call("/api/v1/social-accounts", credentials.agent_key))
  expect(accounts.data).toHaveLength(9)
  expect(accounts.data.map((account: { ref: string }) => account.ref)).toContain("x:herald_demo")

  const created = await call("/api/v1/posts", credentials.agent_key, {
    caption: "Hello from Herald!",
    social_accounts: ["x:herald_demo", "bluesky:herald_demo"]
  })
  expect(created.status).toBe(201)
  const post = await json(created)
  expect(post.status).toBe("pending_approval")
  expect(post.approval_url).toMatch(/^http:\/\/localhost:\d+\/approve\//)

  const refused = await call(`/api/v1/posts/${post.id}/approve`, credentials.agent_key, { decision: "approve" })
  expect(refused.status).toBe(403)
  const approved = await call(`/api/v1/posts/${post.id}/approve`, credentials.human_key, { decision: "approve" })
  expect(approved.status).toBe(200)
  expect(["scheduled", "processing"]).toContain((await json(approved)).status)

  let receipt = await json(await call(`/api/v1/post-results?post_id=${post.id}`, credentials.human_key))
  for (let tries = 0; receipt.post_status !== "posted" && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    receipt = await json(await call(`/api/v1/post-results?post_id=${post.id}`, credentials.human_key))
  }
  expect(receipt.post_status).toBe("posted")
  expect(receipt.data.map((row: { status: string; url: string | null }) => [row.status, row.url !== null])).toEqual([
    ["success", true],
    ["success", true]
  ])

  const health = await json(await fetch(`${first.origin}/health`))
  expect(health).toMatchObject({ status: "ok", database: { reachable: true } })

  await stop(first.child)
  const second = await serve(dataDir)
  running.push(second.child)
  for (const secret of [credentials.admin_token, credentials.human_key, credentials.agent_key]) {
    expect(second.output()).not.toContain(secret)
  }
  origin = second.origin
  const listed = await json(await call("/api/v1/posts", credentials.human_key))
  expect(listed.data.map((row: { id: string; status: string }) => [row.id, row.status])).toEqual([[post.id, "posted"]])
}, 120_000)
