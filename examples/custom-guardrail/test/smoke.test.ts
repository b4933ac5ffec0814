import * as Fs from "node:fs"
import { createHerald, GuardrailBlocked } from "@herald/app"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { expect, it } from "vitest"
import { competitorsClassifier } from "../src/competitors.js"

it("blocks a post naming a competitor once the project bans the topic; lets others through", async () => {
  const dataDir = embeddedDataDir("herald-example-guardrail-")
  const herald = await createHerald({ publicUrl: "http://127.0.0.1", dataDir, demo: true, classifier: competitorsClassifier(["AcmeCorp", "Globex"]) })
  try {
    const { project_id, human_key } = herald.demoCredentials!
    await herald.admin.projects.update({ path: { project_id }, payload: { guardrails: { banned_topics: ["competitors", "politics"] } } })
    const api = herald.api(human_key)
    const verdict = await api.accounts.checkGuardrails({ payload: { caption: "Better than globex, cheaper too" } })
    expect(verdict).toMatchObject({ allowed: false, violations: [{ rule: "banned_topics", topic: "competitors" }] })
    expect(verdict.skipped).toContainEqual({ rule: "banned_topics", reason: expect.stringContaining("politics") })
    const blocked = await api.posts.create({ payload: { caption: "Switch from AcmeCorp today", social_accounts: ["x:herald_demo"] } })
      .then(() => null, (error: unknown) => error)
    expect(blocked).toBeInstanceOf(GuardrailBlocked)
    expect((blocked as GuardrailBlocked).status).toBe(422)
    const fine = await api.posts.create({ payload: { caption: "Our spring release is out", social_accounts: ["x:herald_demo"], is_draft: true } })
    expect(fine.status).toBe("draft")
  } finally {
    await herald.close()
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}, 60_000)
