import { type Browser, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json, startHerald, type TestHerald } from "../TestHerald.js"
import { buildDashboard, chromiumPath, hasChromium, launchChromium, screenshot, seriousViolations } from "./Browser.js"

/** No serious or critical axe-core violation on the page as it is now. */
const expectAccessible = async (page: Page) => expect(await seriousViolations(page)).toEqual([])

/** A 1×1 PNG: the smallest picture the media upload takes. */
const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

describe.skipIf(!hasChromium)(
  `dashboard in chromium against the built assets (skipped without ${chromiumPath}: apt-get install chromium)`,
  () => {
    let herald: TestHerald
    let browser: Browser

    beforeAll(async () => {
      buildDashboard()
      herald = await startHerald({ workers: true })
      browser = await launchChromium()
    }, 120_000)
    afterAll(async () => {
      await browser?.close()
      await herald?.close()
    })

    const openSignedIn = async (credential: string, viewport = { width: 1200, height: 900 }) => {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      await page.goto(`${herald.origin}/dashboard/`)
      await page.getByLabel("Admin token or human API key").fill(credential)
      await page.getByRole("button", { name: "Sign in" }).click()
      return page
    }

    /** A post an agent writes: held for approval in the demo's copilot mode. */
    const heldPost = async (caption: string) => {
      const reply = await herald.call("/api/v1/posts", {
        method: "POST",
        token: herald.credentials.agent_key,
        json: { caption, social_accounts: ["bluesky:herald_demo", "linkedin:herald_demo"] }
      })
      const created = await json(reply)
      expect(created.status).toBe("pending_approval")
      return created.id as string
    }

    it("refuses an agent key at sign-in, saying why, and keeps no key in the page's storage", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(`${herald.origin}/dashboard/`)
      await expectAccessible(page)
      await screenshot(page, "sign-in")
      await page.getByLabel("Admin token or human API key").fill(herald.credentials.agent_key)
      await page.getByRole("button", { name: "Sign in" }).click()
      await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/agent keys cannot sign in/)
      await screenshot(page, "sign-in-agent-refused")
      const signedIn = await openSignedIn(herald.credentials.human_key)
      await signedIn.getByRole("heading", { name: "Approval queue" }).waitFor()
      // A string, as this package is compiled without the DOM's types.
      const stored = await signedIn.evaluate<string>("JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie")
      expect(stored).not.toContain("hk_")
      expect(stored).not.toContain("herald_session")
      await context.close()
      await signedIn.context().close()
    })

    it("shows an agent's held post as it arrives, approves it, watches it post and opens its receipt", { timeout: 90_000 }, async () => {
      const page = await openSignedIn(herald.credentials.human_key)
      await page.getByRole("heading", { name: "Approval queue" }).waitFor()
      const caption = `Launch day ${Date.now()}`
      const id = await heldPost(caption)
      // No reload: the queue finds the hold on its own.
      const card = page.getByRole("listitem").filter({ hasText: caption })
      await card.first().waitFor({ timeout: 15_000 })
      await expect.poll(() => card.first().getByText(/Guardrails: passed/).count()).toBe(1)
      await expect.poll(() => card.first().getByRole("article").count()).toBe(2)
      await expectAccessible(page)
      await screenshot(page, "queue")

      await card.first().getByRole("button", { name: "Approve", exact: true }).click()
      await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/approved/)

      // From the list to the post, whose receipt fills in as the simulator publishes.
      await page.getByRole("link", { name: "Posts", exact: true }).click()
      await page.getByRole("link", { name: caption }).click()
      await page.getByRole("heading", { name: "Receipt" }).waitFor()
      await expect.poll(() => page.getByRole("link", { name: "Live post" }).count(), { timeout: 20_000 }).toBe(2)
      await expect.poll(() => page.getByText("Status:").textContent()).toMatch(/Posted/)
      expect(page.url()).toContain(`#/post/${id}`)
      await expectAccessible(page)
      await screenshot(page, "post-receipt")

      // Takedown asks first, saying what cannot be undone.
      const bluesky = page.getByRole("row").filter({ hasText: "Bluesky @herald_demo" })
      await bluesky.getByRole("button", { name: "Take down…" }).click()
      await expect.poll(() => page.getByRole("alertdialog").textContent()).toMatch(/cannot be undone/)
      await expectAccessible(page)
      await screenshot(page, "post-takedown-confirm")
      await page.getByRole("button", { name: "Take it down" }).click()
      await expect.poll(() => bluesky.textContent(), { timeout: 15_000 }).toMatch(/taken down/)

      await page.getByRole("link", { name: "Posts", exact: true }).click()
      await page.getByLabel("Status", { exact: true }).selectOption("posted")
      await page.getByRole("link", { name: caption }).waitFor()
      await expectAccessible(page)
      await screenshot(page, "posts")
      await page.context().close()
    })

    it("approves every selected held post at once", { timeout: 60_000 }, async () => {
      const page = await openSignedIn(herald.credentials.human_key)
      await page.getByRole("heading", { name: "Approval queue" }).waitFor()
      const stamp = Date.now()
      const ids = [await heldPost(`Bulk one ${stamp}`), await heldPost(`Bulk two ${stamp}`)]
      for (const caption of [`Bulk one ${stamp}`, `Bulk two ${stamp}`]) {
        const card = page.getByRole("listitem").filter({ hasText: caption }).first()
        await card.waitFor({ timeout: 15_000 })
        await card.getByRole("checkbox", { name: "Select for bulk approval" }).check()
      }
      await page.getByRole("button", { name: "Approve selected (2)" }).click()
      await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/2 posts approved/)
      const held = await json(await herald.call("/api/v1/posts?status=pending_approval", { token: herald.credentials.human_key }))
      expect(held.data.map((post: { id: string }) => post.id)).not.toEqual(expect.arrayContaining([ids[0]]))
      expect(held.data.map((post: { id: string }) => post.id)).not.toEqual(expect.arrayContaining([ids[1]]))
      await page.context().close()
    })

    it("rejects a held post with a reason the API then reports", async () => {
      const page = await openSignedIn(herald.credentials.human_key, { width: 390, height: 844 })
      const caption = `Too early ${Date.now()}`
      const id = await heldPost(caption)
      const card = page.getByRole("listitem").filter({ hasText: caption })
      await card.first().waitFor({ timeout: 15_000 })
      await card.first().getByRole("button", { name: "Reject…" }).click()
      await card.first().getByLabel(/Reason for rejecting/).fill("Wait for the press release")
      await screenshot(page, "queue-reject-phone")
      await card.first().getByRole("button", { name: "Reject post" }).click()
      await expect.poll(async () => {
        const list = await json(await herald.call("/api/v1/posts?status=rejected", { token: herald.credentials.human_key }))
        return list.data.find((post: { id: string }) => post.id === id)?.rejectionReason
      }).toBe("Wait for the press release")
      await page.context().close()
    })

    it("shows a reader's key the queue without decide buttons, signed in with the keyboard alone", { timeout: 60_000 }, async () => {
      const created = await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/keys`, {
        method: "POST",
        token: herald.credentials.admin_token,
        json: { name: "reader", kind: "human", scopes: ["posts:read"] }
      })
      expect(created.status).toBe(201)
      const { key } = await json(created)
      await heldPost(`For the reader ${Date.now()}`)
      const page = await (await browser.newContext()).newPage()
      await page.goto(`${herald.origin}/dashboard/`)
      await page.getByLabel("Admin token or human API key").waitFor()
      await page.keyboard.press("Tab")
      await page.keyboard.type(key)
      await page.keyboard.press("Enter")
      await page.getByRole("heading", { name: "Approval queue" }).waitFor()
      await page.getByRole("listitem").filter({ hasText: "For the reader" }).first().waitFor({ timeout: 15_000 })
      await page.getByText(/cannot approve/).waitFor()
      expect(await page.getByRole("button", { name: "Approve", exact: true }).count()).toBe(0)
      expect(await page.getByRole("button", { name: "Reject…" }).count()).toBe(0)
      await expectAccessible(page)
      await screenshot(page, "queue-read-only")
      await page.context().close()
    })

    it("shows a guardrail block inline in the composer, with counts per account, uploads, drafts, edits and deletes", { timeout: 90_000 }, async () => {
      const patched = await herald.call(`/admin/v1/projects/${herald.credentials.project_id}`, {
        method: "PATCH",
        token: herald.credentials.admin_token,
        json: { guardrails: { banned_words: ["frobnicate"] } }
      })
      expect(patched.status).toBe(200)
      const page = await openSignedIn(herald.credentials.human_key)
      await page.getByRole("link", { name: "Composer" }).click()
      await page.getByRole("heading", { name: "Composer" }).waitFor()
      await page.getByLabel(/x ·/i).check()
      await page.getByLabel("Caption", { exact: true }).fill("We frobnicate the launch")
      await page.getByText("Guardrails: blocked").waitFor()
      await expect.poll(() => page.locator("#caption-verdict").textContent()).toMatch(/frobnicate/)
      await expect.poll(() => page.locator("#caption-counts").textContent()).toMatch(/\d+ \/ 280/)
      await expectAccessible(page)
      await screenshot(page, "composer-guardrail-block")
      await page.getByRole("button", { name: "Post" }).click()
      await expect.poll(() => page.getByRole("alert").first().textContent()).toMatch(/guardrail|frobnicate/i)

      // A clean caption, a picture uploaded with its progress shown, saved as a draft.
      await page.getByLabel("Caption", { exact: true }).fill("Our spring launch")
      await page.getByText("Guardrails: passed").waitFor()
      await page.getByLabel("Media").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: Buffer.from(onePixelPng, "base64") })
      await expect.poll(() => page.locator(".uploads").textContent(), { timeout: 15_000 }).toMatch(/dot\.png: .*uploaded/)
      await page.locator(".uploads .thumb img").waitFor()
      await page.getByRole("button", { name: "Save as draft" }).click()
      await page.getByText("Post created (draft).").waitFor()
      await page.getByRole("link", { name: "Open the new post" }).click()
      await page.getByRole("heading", { name: "Receipt" }).waitFor()
      // The picture itself (GET /media/content/{id}), not a count: no alt text was given, so it says so.
      await expect.poll(() => page.getByRole("img", { name: "Attached image 1 (no alt text)" }).count()).toBe(1)

      // Edited (a new version replaces it), then deleted.
      await page.getByRole("button", { name: "Edit" }).click()
      await page.getByLabel("Caption", { exact: true }).fill("Our summer launch")
      await page.getByRole("button", { name: "Save changes" }).click()
      await page.getByText("Our summer launch").first().waitFor()
      await expectAccessible(page)
      await screenshot(page, "post-draft-edited")
      await page.getByRole("button", { name: "Delete" }).click()
      await page.getByRole("heading", { name: "Posts" }).waitFor()
      const drafts = await json(await herald.call("/api/v1/posts?status=draft", { token: herald.credentials.human_key }))
      expect(drafts.data.map((post: { caption: string }) => post.caption)).not.toContain("Our summer launch")
      await page.context().close()
    })

    it("signs the operator in to the projects page, and signs out for good", async () => {
      const page = await openSignedIn(herald.credentials.admin_token)
      await page.getByRole("heading", { name: "Projects" }).waitFor()
      await page.getByText(herald.credentials.project_id).waitFor()
      await expectAccessible(page)
      await screenshot(page, "projects")
      await page.getByRole("button", { name: "Sign out" }).click()
      await page.getByRole("heading", { name: "Sign in to Herald" }).waitFor()
      const after = await page.evaluate(() => fetch("/admin/v1/projects").then((reply) => reply.status))
      expect(after).toBe(401)
      await page.context().close()
    })
  }
)
