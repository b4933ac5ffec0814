import { type RunningSimulator, startSimulator } from "@herald/publishers"
import { type Browser, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { buildDashboard, chromiumPath, hasChromium, launchChromium, screenshot, seriousViolations } from "./Browser.js"

/** A 1×1 PNG: the smallest picture the media upload takes. */
const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

/** No serious or critical axe-core violation on the page as it is now. */
const expectAccessible = async (page: Page) => expect(await seriousViolations(page)).toEqual([])

/**
 * The operator (admin token) working in a project it opened from the Projects page: the pages
 * call the REST API with the Herald-Project header. The server publishes to this file's own
 * simulator, whose accounts the tests can make fail (POST /_sim/accounts/...).
 */
describe.skipIf(!hasChromium)(
  `the operator in a project, in chromium against the built assets (skipped without ${chromiumPath}: apt-get install chromium)`,
  () => {
    let simulator: RunningSimulator
    let herald: TestHerald
    let browser: Browser

    beforeAll(async () => {
      buildDashboard()
      simulator = await startSimulator({ latency: { minMs: 0, maxMs: 0 } })
      herald = await startHerald({ workers: true, simulatorUrl: simulator.url })
      browser = await launchChromium()
    }, 120_000)
    afterAll(async () => {
      await browser?.close()
      await herald?.close()
      await simulator?.close()
    })

    /** The operator signed in and the demo project opened from the Projects page. */
    const operatorInProject = async () => {
      const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage()
      await page.goto(`${herald.origin}/dashboard/`)
      await page.getByLabel("Admin token or human API key").fill(herald.credentials.admin_token)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByRole("heading", { name: "Projects" }).waitFor()
      const row = page.getByRole("row").filter({ hasText: herald.credentials.project_id })
      await row.getByRole("link", { name: "Open", exact: true }).click()
      await page.getByRole("heading", { name: "Approval queue" }).waitFor()
      return page
    }

    const setLogin = async (platform: string, username: string, login: Record<string, unknown>) => {
      const reply = await fetch(`${simulator.url}/_sim/accounts/${platform}/${username}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(login)
      })
      expect(reply.status).toBe(200)
    }

    it("opens a project, says which in the header bar, approves an agent's held post and sees it posted", { timeout: 90_000 }, async () => {
      const page = await operatorInProject()
      const project = await json(await herald.call(`/admin/v1/projects/${herald.credentials.project_id}`, { token: herald.credentials.admin_token }))
      await expect.poll(() => page.getByRole("banner").textContent()).toContain(`Project: ${project.name}`)
      expect(page.url()).toContain(`#/project/${herald.credentials.project_id}/`)
      for (const title of ["Approval queue", "Posts", "Composer", "Accounts", "Insights", "Projects"]) {
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: title, exact: true }).waitFor()
      }
      await expectAccessible(page)
      await screenshot(page, "operator-queue-empty")

      const caption = `Operator approves ${Date.now()}`
      const held = await json(await herald.call("/api/v1/posts", {
        method: "POST",
        token: herald.credentials.agent_key,
        json: { caption, social_accounts: ["bluesky:herald_demo"] }
      }))
      expect(held.status).toBe("pending_approval")
      const card = page.getByRole("listitem").filter({ hasText: caption }).first()
      await card.waitFor({ timeout: 15_000 })
      await expectAccessible(page)
      await screenshot(page, "operator-queue")
      await card.getByRole("button", { name: "Approve", exact: true }).click()
      await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/approved/)

      await page.getByRole("link", { name: "Posts", exact: true }).click()
      await page.getByRole("link", { name: caption }).click()
      await page.getByRole("heading", { name: "Receipt" }).waitFor()
      await expect.poll(() => page.getByText("Status:").textContent(), { timeout: 20_000 }).toMatch(/Posted/)
      expect(page.url()).toContain(`#/project/${herald.credentials.project_id}/post/${held.id}`)
      await expectAccessible(page)
      await screenshot(page, "operator-post-posted")

      const receipt = await json(await herald.call(`/api/v1/post-results?post_id=${held.id}`, { token: herald.credentials.human_key }))
      expect(receipt.provenance.decided_by).toMatchObject({ outcome: "approved", key_name: "operator" })

      // Switching: back to the projects, the project pages leave the navigation.
      await page.getByRole("link", { name: "Switch project" }).click()
      await page.getByRole("heading", { name: "Projects" }).waitFor()
      expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approval queue" }).count()).toBe(0)
      expect(await page.getByText("Switch project").count()).toBe(0)
      await page.context().close()
    })

    it("retries a failed delivery from the post's page and sees it posted", { timeout: 90_000 }, async () => {
      // The simulated account takes back its publish permission: the delivery fails (403, not retried on its own).
      await setLogin("x", "herald_demo", { token: "valid", expires_at: null, dropped_permissions: ["publish"] })
      const caption = `Retry me ${Date.now()}`
      const created = await json(await herald.call("/api/v1/posts", {
        method: "POST",
        token: herald.credentials.human_key,
        json: { caption, social_accounts: ["x:herald_demo"] }
      }))
      expect(created.id).toEqual(expect.any(String))

      const page = await operatorInProject()
      await page.goto(`${herald.origin}/dashboard/#/project/${herald.credentials.project_id}/post/${created.id}`)
      await page.getByRole("heading", { name: "Receipt" }).waitFor()
      const row = page.getByRole("row").filter({ hasText: "@herald_demo" })
      const retry = row.getByRole("button", { name: "Retry" })
      await retry.waitFor({ timeout: 20_000 })
      await expect.poll(() => row.textContent()).toMatch(/permission_missing/)
      await expectAccessible(page)
      await screenshot(page, "operator-post-failed")

      // The permission granted again, Retry sends the delivery once more.
      await setLogin("x", "herald_demo", { token: "valid", expires_at: null, dropped_permissions: [] })
      await retry.click()
      await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/queued again/)
      await expect.poll(() => page.getByText("Status:").textContent(), { timeout: 20_000 }).toMatch(/Posted/)
      await expect.poll(() => row.getByRole("link", { name: "Live post" }).count(), { timeout: 20_000 }).toBe(1)
      await expectAccessible(page)
      await screenshot(page, "operator-post-retried")

      const receipt = await json(await herald.call(`/api/v1/post-results?post_id=${created.id}`, { token: herald.credentials.human_key }))
      expect(receipt.data[0]).toMatchObject({ status: "success" })
      await page.context().close()
    })
    it("writes in the composer (an upload included), sees the accounts and the insights of the open project", { timeout: 90_000 }, async () => {
      const page = await operatorInProject()
      const nav = page.getByRole("navigation", { name: "Main" })
      await nav.getByRole("link", { name: "Composer", exact: true }).click()
      await page.getByRole("heading", { name: "Composer" }).waitFor()
      await page.getByLabel(/x ·/i).check()
      const caption = `The operator's draft ${Date.now()}`
      await page.getByLabel("Caption", { exact: true }).fill(caption)
      await page.getByText("Guardrails: passed").waitFor()
      // The upload goes by XMLHttpRequest (for its progress), with the header like every other call.
      await page.getByLabel("Media").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: Buffer.from(onePixelPng, "base64") })
      await expect.poll(() => page.locator(".uploads").textContent(), { timeout: 15_000 }).toMatch(/dot\.png: .*uploaded/)
      // An <img> cannot send the header: the operator's thumbnail is the bytes read with it, as a blob URL.
      const thumbnail = page.getByRole("img", { name: "Attached image 1 (no alt text)" }).first()
      await thumbnail.waitFor()
      expect(await thumbnail.getAttribute("src")).toMatch(/^blob:/)
      type Picture = { readonly complete: boolean; readonly naturalWidth: number }
      await expect.poll(() => thumbnail.evaluate((img: unknown) => ((img as Picture).complete ? (img as Picture).naturalWidth : 0))).toBe(1)
      await expectAccessible(page)
      await screenshot(page, "operator-composer")
      await page.getByRole("button", { name: "Save as draft" }).click()
      await page.getByText("Post created (draft).").waitFor()
      const drafts = await json(await herald.call("/api/v1/posts?status=draft", { token: herald.credentials.human_key }))
      const draft = drafts.data.find((row: { caption: string }) => row.caption === caption)
      expect(draft.provenance.created_by).toMatchObject({ key_name: "operator", kind: "human" })
      expect(draft.media_ids).toHaveLength(1)

      await nav.getByRole("link", { name: "Accounts", exact: true }).click()
      await page.getByRole("heading", { name: "Open connection issues" }).waitFor()
      await page.getByRole("row", { name: /herald_demo/ }).first().waitFor()
      await expectAccessible(page)
      await screenshot(page, "operator-accounts")
      await nav.getByRole("link", { name: "Insights", exact: true }).click()
      await page.getByRole("heading", { name: "Best times" }).waitFor()
      await expectAccessible(page)
      await screenshot(page, "operator-insights")
      await page.context().close()
    })
  }
)
