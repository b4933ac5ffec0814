import type { Browser, Page } from "playwright-core"
import { Duration } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeFixtures } from "../media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { buildDashboard, hasChromium, launchChromium, screenshot, seriousViolations } from "./Browser.js"

/**
 * Media shown as pictures (the queue's previews, through GET /media/content/{id} with the session
 * cookie) and a posted post's metrics over time (GET /metrics/history) as charts, in chromium,
 * against a server with its workers, so the post goes out and its metrics are synced.
 */
let herald: TestHerald
let browser: Browser | undefined
let page: Page
let heldId = ""
let postedId = ""

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  if (!hasChromium) return
  buildDashboard()
  herald = await startHerald({
    metrics: {
      metricsSchedule: { firstAfter: Duration.zero, every: Duration.seconds(1), lastAfter: Duration.days(30) },
      metricsPollInterval: Duration.millis(100)
    }
  })
  const fixtures = makeFixtures()
  const form = new FormData()
  form.append("file", new Blob([fixtures.png], { type: "image/png" }), "square.png")
  form.append("alt_text", "A red square on white")
  const media = await json(await herald.call("/api/v1/media", { method: "POST", token: herald.credentials.agent_key, body: form }))
  const held = await herald.call("/api/v1/posts", {
    method: "POST",
    token: herald.credentials.agent_key,
    json: { caption: "A picture for the reviewers", social_accounts: ["x:herald_demo"], media_ids: [media.id] }
  })
  heldId = (await json(held)).id
  const posted = await herald.call("/api/v1/posts", {
    method: "POST",
    token: herald.credentials.human_key,
    json: { caption: "Numbers over time", social_accounts: ["x:herald_demo", "linkedin:herald_demo"] }
  })
  postedId = (await json(posted)).id
  const deadline = Date.now() + 60_000
  for (;;) {
    const history = await json(await herald.call(`/api/v1/metrics/history?post_id=${postedId}`, { token: herald.credentials.human_key }))
    if (history.data?.length === 2) break
    if (Date.now() > deadline) throw new Error(`never synced: ${JSON.stringify(history)}`)
    await sleep(200)
  }
  browser = await launchChromium()
  page = await (await browser.newContext()).newPage()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await herald?.close()
})

describe.skipIf(!hasChromium)("media and metrics in the dashboard (skipped without /usr/bin/chromium: apt-get install chromium)", () => {
  it("the queue shows a held post's image as a thumbnail; the post page charts its metrics over time", async () => {
    await page.goto(`${herald.origin}/dashboard/`)
    await page.getByLabel("Admin token or human API key").fill(herald.credentials.human_key)
    await page.getByRole("button", { name: /sign in/i }).click()
    const thumbnail = page.getByRole("img", { name: "A red square on white" }).first()
    await thumbnail.waitFor()
    // Loaded, not a broken image: the bytes came through the session cookie.
    // (Typed by hand: this file is compiled without the DOM's types.)
    type Picture = { readonly complete: boolean; readonly naturalWidth: number }
    const loaded = () => thumbnail.evaluate((img: unknown) => ((img as Picture).complete ? (img as Picture).naturalWidth : 0))
    await expect.poll(loaded, { timeout: 15_000 }).toBe(64)
    expect(await thumbnail.getAttribute("src")).toMatch(/^\/api\/v1\/media\/content\/[0-9a-f-]{36}$/)
    expect(heldId).not.toBe("")
    await screenshot(page, "queue-media")
    expect(await seriousViolations(page)).toEqual([])

    await page.goto(`${herald.origin}/dashboard/#/post/${postedId}`)
    await page.getByRole("heading", { name: "Metrics over time" }).waitFor()
    const chart = page.getByRole("img", { name: /^likes over time\./ })
    await chart.waitFor()
    expect(await chart.getAttribute("aria-label")).toMatch(/X @herald_demo: \d/)
    expect(await page.locator("figure.chart").count()).toBeGreaterThanOrEqual(4)
    expect(await page.locator("figure.chart path").count()).toBeGreaterThan(0)
    await screenshot(page, "post-metrics")
    expect(await seriousViolations(page)).toEqual([])
  }, 120_000)
})
