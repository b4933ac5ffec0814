import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import AxeBuilder from "@axe-core/playwright"
import { Effect } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import { buildDashboardIfStale } from "../../src/DashboardBuild.js"
import { startHerald, type TestHerald } from "../TestHerald.js"

/** Debian's chromium (FIELD-NOTES.md): the browser tests are skipped, saying so, where it is absent. */
export const chromiumPath = "/usr/bin/chromium"
export const hasChromium = Fs.existsSync(chromiumPath)

const screenshots = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "screenshots")

/**
 * For a test file: the reference server (no workers) serving the built dashboard (what `npm start`
 * serves, built first if stale) and one chromium page, started before the file's tests and
 * closed after. `current` is filled in by then.
 */
export const dashboardInBrowser = () => {
  const current = {} as { herald: TestHerald; page: Page }
  let browser: Browser | undefined
  beforeAll(async () => {
    if (!hasChromium) return
    await Effect.runPromise(buildDashboardIfStale)
    current.herald = await startHerald({ workers: false })
    browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu"] })
    current.page = await (await browser.newContext()).newPage()
    Fs.mkdirSync(screenshots, { recursive: true })
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await current.herald?.close()
  })
  return {
    current,
    /** Signs in on the dashboard's page with a credential (the admin token or a human key). */
    signIn: async (credential: string) => {
      const { herald, page } = current
      await page.goto(`${herald.origin}/dashboard/`)
      await page.getByLabel("Admin token or human API key").fill(credential)
      await page.getByRole("button", { name: /sign in/i }).click()
    },
    /** axe-core's serious and critical violations on the page as it stands. */
    seriousViolations: async () =>
      (await new AxeBuilder({ page: current.page }).analyze()).violations
        .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
        .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`),
    /** A full-page screenshot under test/dashboard/screenshots/ (git-ignored). */
    screenshot: (name: string) => current.page.screenshot({ path: Path.join(screenshots, `${name}.png`), fullPage: true })
  }
}
