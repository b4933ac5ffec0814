import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { AxeBuilder } from "@axe-core/playwright"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import { startHerald, type TestHerald } from "../TestHerald.js"

/** Debian's chromium (FIELD-NOTES.md; `.ci/run` installs it): the browser tests are skipped, saying so, where it is absent. */
export const chromiumPath = process.env["HERALD_CHROMIUM"] ?? "/usr/bin/chromium"
export const hasChromium = Fs.existsSync(chromiumPath)

const screenshots = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "screenshots")

/**
 * Builds the assets `npm start` serves when they are stale, through its build step (vite, a few
 * seconds), which makes browser test files running side by side wait for one build.
 */
export const buildDashboard = () => {
  const build = spawnSync(process.execPath, [fileURLToPath(new URL("../../../../scripts/build.mjs", import.meta.url)), "@herald/dashboard"], { stdio: "inherit" })
  if (build.status !== 0) throw new Error(`the dashboard did not build (exit ${build.status})`)
  Fs.mkdirSync(screenshots, { recursive: true })
}

/** Chromium headless with the flags FIELD-NOTES.md lists for this machine; playwright-core downloads no browser. */
export const launchChromium = () =>
  chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage", "--disable-gpu"]
  })

/** axe-core's serious and critical violations on the page as it stands (the rest are reported by axe, not failed). */
export const seriousViolations = async (page: Page) =>
  (await new AxeBuilder({ page }).analyze()).violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`)

/** A full-page screenshot under test/dashboard/screenshots/ (git-ignored), to be looked at. */
export const screenshot = (page: Page, name: string) => page.screenshot({ path: Path.join(screenshots, `${name}.png`), fullPage: true })

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
    buildDashboard()
    current.herald = await startHerald({ workers: false })
    browser = await launchChromium()
    current.page = await (await browser.newContext()).newPage()
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
    seriousViolations: () => seriousViolations(current.page),
    screenshot: (name: string) => screenshot(current.page, name)
  }
}
