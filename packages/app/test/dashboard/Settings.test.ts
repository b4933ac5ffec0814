import { describe, expect, it } from "vitest"
import { json } from "../TestHerald.js"
import { dashboardInBrowser, hasChromium } from "./Browser.js"

/** The Settings page in chromium, signed in as the operator (the admin API only). */
const { current, screenshot, seriousViolations, signIn } = dashboardInBrowser()

describe.skipIf(!hasChromium)("the Settings page (skipped without /usr/bin/chromium: apt-get install chromium)", () => {
  it("the operator creates a key and sees it once, with a copy button; the list shows only its prefix", async () => {
    const { herald, page } = current
    await signIn(herald.credentials.admin_token)
    await page.getByRole("link", { name: "Projects" }).waitFor()
    await page.getByRole("link", { name: "Demo" }).click()
    await page.getByRole("heading", { name: "API keys" }).waitFor()
    expect(await seriousViolations()).toEqual([])

    // The guardrail dry run judges the rules as typed, before they are saved.
    await page.getByLabel("Banned words (comma-separated)").fill("refund")
    await page.getByLabel("Dry run: a caption to check against these rules").fill("Ask for a refund today")
    await page.getByRole("button", { name: "Check caption" }).click()
    await page.getByText("Guardrails: blocked").waitFor()
    const saved = await json(await herald.call(`/admin/v1/projects/${herald.credentials.project_id}`, { token: herald.credentials.admin_token }))
    expect(saved.guardrails.banned_words).toEqual([])

    const keys = page.getByRole("region", { name: "API keys" })
    const create = page.getByRole("form", { name: "Create an API key" })
    await create.getByLabel("Name").fill("Reviewer Dana")
    await create.getByRole("button", { name: "Create key" }).click()
    const once = page.getByRole("region", { name: "New API key" })
    await once.waitFor()
    const key = (await once.locator("code").textContent())!
    expect(key).toMatch(/^hk_human_/)
    await expect(once.getByRole("button", { name: "Copy" }).isVisible()).resolves.toBe(true)
    await screenshot("settings")
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

  it("connects a simulator account at once; a direct one without an OAuth app says which settings are missing", async () => {
    const { page } = current
    const accounts = page.getByRole("region", { name: "Accounts" })
    const connect = page.getByRole("form", { name: "Connect an account" })
    await connect.locator("select[name=platform]").selectOption("bluesky")
    await connect.locator("select[name=route]").selectOption("simulator")
    await connect.getByLabel("Username (simulator only)").fill("dana_test")
    await connect.getByRole("button", { name: "Connect" }).click()
    await accounts.getByRole("row", { name: /bluesky @dana_test/ }).waitFor()
    await connect.locator("select[name=platform]").selectOption("linkedin")
    await connect.locator("select[name=route]").selectOption("direct")
    await connect.getByRole("button", { name: "Connect" }).click()
    await accounts.getByRole("alert").getByText(/HERALD_LINKEDIN_CLIENT_ID/).first().waitFor()
    expect(page.url()).toContain("/dashboard/")
    await screenshot("settings-accounts")
    expect(await seriousViolations()).toEqual([])
  }, 120_000)
})
