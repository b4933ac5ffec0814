import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  checkGuardrails,
  ClassifiersUnavailable,
  type GuardrailSettings,
  type GuardrailVerdict,
  noGuardrails,
  type OutboundText,
  toneClassifierInMemory,
  TopicClassifierByName,
  topicClassifierInMemory,
  ToneClassifierUnavailable,
  TopicClassifierUnavailable
} from "@herald/core"

const caption = (text: string): ReadonlyArray<OutboundText> => [{ field: "caption", text }]
const settings = (overrides: Partial<GuardrailSettings>): GuardrailSettings => ({ ...noGuardrails, ...overrides })

// A tone classifier that objects to shouting, and topics recognised by name.
const Classifiers = Layer.merge(
  TopicClassifierByName,
  toneClassifierInMemory((text) => (text === text.toUpperCase() && /[A-Z]/.test(text) ? "it shouts" : null))
)

const expectConsistent = (verdict: GuardrailVerdict) => {
  expect(verdict.allowed).toBe(verdict.violations.length === 0)
  for (const violation of verdict.violations) expect(verdict.rules_checked).toContain(violation.rule)
  for (const rule of verdict.rules_skipped) expect(verdict.rules_checked).not.toContain(rule)
}

describe("checkGuardrails", () => {
  it.effect("checks nothing when nothing is configured", () =>
    Effect.gen(function*() {
      const verdict = yield* checkGuardrails(caption("anything at all"), noGuardrails, { postsToday: 10 })
      expect(verdict).toEqual({ allowed: true, violations: [], rules_checked: [], rules_skipped: [] })
    }).pipe(Effect.provide(ClassifiersUnavailable)))

  it.effect("lists every configured rule, in order, and blocks on any violation", () =>
    Effect.gen(function*() {
      const all = settings({
        banned_words: ["spam"],
        banned_topics: ["gambling"],
        tone: "calm",
        links: { allowed_domains: [], denied_domains: ["evil.com"], block_shorteners: false, max_links: null },
        daily_post_cap: 5
      })
      const clean = yield* checkGuardrails(caption("A quiet morning."), all, { postsToday: 0 })
      expect(clean).toEqual({
        allowed: true,
        violations: [],
        rules_checked: ["banned_words", "banned_topics", "tone", "links", "posting_cap"],
        rules_skipped: []
      })
      const dirty = yield* checkGuardrails(
        [
          { field: "caption", text: "SPAM AND GAMBLING AT EVIL.COM" },
          { field: "signature", text: "— the team" }
        ],
        all,
        { postsToday: 5 }
      )
      expectConsistent(dirty)
      expect(dirty.allowed).toBe(false)
      expect(dirty.violations).toEqual([
        { rule: "banned_words", detail: "caption contains banned word \"spam\"" },
        { rule: "banned_topics", detail: "caption is about banned topic \"gambling\": the text names \"gambling\"" },
        { rule: "tone", detail: "caption does not fit the tone \"calm\": it shouts" },
        { rule: "links", detail: "caption links to denied domain \"evil.com\"" },
        { rule: "posting_cap", detail: "this key already created 5 posts today; its daily cap is 5" }
      ])
    }).pipe(Effect.provide(Classifiers)))

  it.effect("names the field of each banned word", () =>
    Effect.gen(function*() {
      const verdict = yield* checkGuardrails(
        [
          { field: "caption", text: "fine" },
          { field: "platform_configurations.x.thread[2]", text: "s.p.a.m" }
        ],
        settings({ banned_words: ["spam"] }),
        { postsToday: null }
      )
      expect(verdict.violations).toEqual([
        { rule: "banned_words", detail: "platform_configurations.x.thread[2] contains banned word \"spam\"" }
      ])
    }).pipe(Effect.provide(ClassifiersUnavailable)))

  it.effect("fails open: an unavailable classifier skips its rule, never blocks, never errors", () =>
    Effect.gen(function*() {
      const verdict = yield* checkGuardrails(
        caption("gambling talk"),
        settings({ banned_topics: ["gambling"], tone: "calm", banned_words: ["spam"] }),
        { postsToday: null }
      )
      expectConsistent(verdict)
      expect(verdict).toEqual({ allowed: true, violations: [], rules_checked: ["banned_words"], rules_skipped: ["banned_topics", "tone"] })
    }).pipe(Effect.provide(ClassifiersUnavailable)))

  it.effect("skips only the unavailable classifier", () =>
    Effect.gen(function*() {
      const verdict = yield* checkGuardrails(
        caption("LOUD GAMBLING"),
        settings({ banned_topics: ["gambling"], tone: "calm" }),
        { postsToday: null }
      )
      expect(verdict.rules_checked).toEqual(["banned_topics"])
      expect(verdict.rules_skipped).toEqual(["tone"])
      expect(verdict.violations.map((violation) => violation.rule)).toEqual(["banned_topics"])
    }).pipe(Effect.provide(Layer.merge(TopicClassifierByName, ToneClassifierUnavailable))))

  it.effect("classifies a text repeated in several fields once, naming all of them", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const verdict = yield* checkGuardrails(
        [
          { field: "caption", text: "same words" },
          { field: "platform_configurations.x.caption", text: "same words" },
          { field: "signature", text: "sig" }
        ],
        settings({ banned_topics: ["politics"] }),
        { postsToday: null }
      ).pipe(Effect.provide(Layer.merge(
        topicClassifierInMemory((text, topics) => {
          calls.push(text)
          return text === "same words" ? [{ topic: topics[0]!, detail: "it argues" }] : []
        }),
        ToneClassifierUnavailable
      )))
      expect(calls.sort()).toEqual(["same words", "sig"])
      expect(verdict.violations).toEqual([{
        rule: "banned_topics",
        detail: "caption, platform_configurations.x.caption is about banned topic \"politics\": it argues"
      }])
    }))

  it.effect("posting cap: below the cap passes, at the cap blocks, unknown count is skipped", () =>
    Effect.gen(function*() {
      const capped = settings({ daily_post_cap: 3 })
      const below = yield* checkGuardrails(caption("hi"), capped, { postsToday: 2 })
      const at = yield* checkGuardrails(caption("hi"), capped, { postsToday: 3 })
      const unknown = yield* checkGuardrails(caption("hi"), capped, { postsToday: null })
      expect(below).toMatchObject({ allowed: true, rules_checked: ["posting_cap"] })
      expect(at).toMatchObject({ allowed: false, rules_checked: ["posting_cap"] })
      expect(unknown).toEqual({ allowed: true, violations: [], rules_checked: [], rules_skipped: ["posting_cap"] })
    }).pipe(Effect.provide(ClassifiersUnavailable)))

  it.effect("blank terms, topics and tone count as not configured", () =>
    Effect.gen(function*() {
      const verdict = yield* checkGuardrails(caption("x"), settings({ banned_words: [" "], banned_topics: [""], tone: "  " }), {
        postsToday: null
      })
      expect(verdict.rules_checked).toEqual([])
      expect(verdict.rules_skipped).toEqual([])
    }).pipe(Effect.provide(Layer.merge(TopicClassifierUnavailable, ToneClassifierUnavailable))))
})
