import { describe, expect, it } from "vitest"
import { dashboardInBrowser, hasChromium } from "./Browser.js"

/** The Accounts and Insights pages in chromium, signed in with the demo's human key. */
const { current, screenshot, seriousViolations, signIn } = dashboardInBrowser()

describe.skipIf(!hasChromium)("the Accounts and Insights pages (skipped without /usr/bin/chromium: apt-get install chromium)", () => {
  it("a reviewer sees the accounts with their status and no open issue, checks them now, then the insights' empty states and heatmap", async () => {
    const { herald, page } = current
    await signIn(herald.credentials.human_key)
    await page.getByRole("link", { name: "Accounts" }).click()
    await page.getByRole("heading", { name: "Open connection issues" }).waitFor()
    await page.getByRole("row", { name: /herald_demo/ }).first().waitFor()
    expect(await page.getByRole("table").locator("tbody tr").count()).toBe(9)
    await page.getByText("No open issue").waitFor()
    await page.getByRole("button", { name: "Check connections now" }).click()
    await page.getByText("Checked 9 accounts: 9 healthy.").waitFor()
    await screenshot("accounts")
    expect(await seriousViolations()).toEqual([])

    await page.getByRole("link", { name: "Insights" }).click()
    await page.getByRole("heading", { name: "Best times" }).waitFor()
    await page.getByText("Nothing went out in this window.").waitFor()
    await page.getByText("No engagement recorded yet").waitFor()
    expect(await page.locator("table.heatmap tbody tr").count()).toBe(7)
    await screenshot("insights")
    expect(await seriousViolations()).toEqual([])
  }, 120_000)
})
