import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import AxeBuilder from "@axe-core/playwright"
import { Effect } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildDashboardIfStale } from "../../src/DashboardBuild.js"
import { json, startHerald, type TestHerald } from "../TestHerald.js"

/**
 * The Settings page in Debian's chromium (playwright-core) against the reference server serving
 * the built dashboard (what `npm start` serves), signed in as the operator. Screenshots go to
 * test/dashboard/screenshots/ (git-ignored).
 */
const screenshots = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "screenshots")
const chromiumPath = "/usr/bin/chromium"

let herald: TestHerald
let browser: Browser
let page: Page

beforeAll(async () => {
  await Effect.runPromise(buildDashboardIfStale)
  herald = await startHerald({ workers: false })
  browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu"] })
  page = await (await browser.newContext()).newPage()
  Fs.mkdirSync(screenshots, { recursive: true })
}, 180_000)
afterAll(async () => {
  await browser?.close()
  await herald?.close()
})

const seriousViolations = async () =>
  (await new AxeBuilder({ page }).analyze()).violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)

describe.skipIf(!Fs.existsSync(chromiumPath))("the Settings page (skipped without /usr/bin/chromium: apt-get install chromium)", () => {
  it("the operator creates a key and sees it once, with a copy button; the list shows only its prefix", async () => {
    await page.goto(`${herald.origin}/dashboard/`)
    await page.getByLabel("Admin token or human API key").fill(herald.credentials.admin_token)
    await page.getByRole("button", { name: /sign in/i }).click()
    await page.getByRole("link", { name: "Projects" }).waitFor()
    await page.getByRole("link", { name: "Demo" }).click()
    await page.getByRole("heading", { name: "API keys" }).waitFor()
    expect(await seriousViolations()).toEqual([])

    const keys = page.getByRole("region", { name: "API keys" })
    const create = page.getByRole("form", { name: "Create an API key" })
    await create.getByLabel("Name").fill("Reviewer Dana")
    await create.getByRole("button", { name: "Create key" }).click()
    const once = page.getByRole("region", { name: "New API key" })
    await once.waitFor()
    const key = (await once.locator("code").textContent())!
    expect(key).toMatch(/^hk_human_/)
    await expect(once.getByRole("button", { name: "Copy" }).isVisible()).resolves.toBe(true)
    await page.screenshot({ path: Path.join(screenshots, "settings.png"), fullPage: true })
    expect(await seriousViolations()).toEqual([])

    // The key works, and after a reload nothing on the page shows it again.
    const project = await herald.call("/api/v1/project", { token: key })
    expect(project.status).toBe(200)
    await page.reload()
    await page.getByRole("heading", { name: "API keys" }).waitFor()
    await page.getByText("Reviewer Dana").waitFor()
    expect(await page.content()).not.toContain(key)
    const listed = await json(await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/keys`, { token: herald.credentials.admin_token }))
    const dana = listed.data.find((k: { name: string }) => k.name === "Reviewer Dana")
    expect(key.startsWith(dana.prefix)).toBe(true)
    await keys.getByText(`${dana.prefix}…`).waitFor()
  }, 120_000)
})
