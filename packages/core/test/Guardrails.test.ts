import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import {
  BuiltinClassifier,
  checkGuardrails,
  classifierInMemory,
  ClassifiersUnavailable,
  type GuardrailSettings,
  type GuardrailVerdict,
  noGuardrails,
  type OutboundText
} from "@herald/core"

const caption = (text: string): ReadonlyArray<OutboundText> => [{ field: "caption", text }]
const settings = (overrides: Partial<GuardrailSettings>): GuardrailSettings => ({ ...noGuardrails, ...overrides })

// A classifier that finds each asked topic in a text that says it is about it, and objects to shouting.
const Classifiers = classifierInMemory((text, question) => ({
  topics: question.topics.filter((topic) => text.includes(`ABOUT ${topic.toUpperCase()}`)).map((topic) => ({
    topic,
    score: 0.9,
    evidence: [topic]
  })),
  tone: text === text.toUpperCase() && /[A-Z]/.test(text) ? Option.some({ score: 0.8, reason: "it shouts" }) : Option.none()
}))

const expectConsistent = (verdict: GuardrailVerdict) => {
  expect(verdict.allowed).toBe(verdict.violations.length === 0)
  for (const violation of verdict.violations) expect(verdict.rules_checked).toContain(violation.rule)
  expect([...new Set(verdict.skipped.map(({ rule }) => rule))]).toEqual(verdict.rules_skipped)
}

describe("checkGuardrails", () => {
  it.effect("checks nothing when nothing is configured", () =>
    Effect.gen(function*() {
      const verdict = yield* checkGuardrails(caption("anything at all"), noGuardrails, { postsToday: 10 })
      expect(verdict).toEqual({ allowed: true, violations: [], rules_checked: [], rules_skipped: [], skipped: [] })
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
        rules_skipped: [],
        skipped: []
      })
      const dirty = yield* checkGuardrails(
        [
          { field: "caption", text: "SPAM ABOUT GAMBLING AT EVIL.COM" },
          { field: "signature", text: "— the team" }
        ],
        all,
        { postsToday: 5 }
      )
      expectConsistent(dirty)
      expect(dirty.allowed).toBe(false)
      expect(dirty.violations).toEqual([
        { rule: "banned_words", detail: "caption contains banned word \"spam\"", field: "caption", span: { start: 0, end: 4, text: "SPAM" } },
        { rule: "banned_topics", detail: "caption is about banned topic \"gambling\" (score 0.9; gambling)", field: "caption", topic: "gambling", score: 0.9 },
        { rule: "tone", detail: "caption does not fit the tone \"calm\" (score 0.8): it shouts", field: "caption", score: 0.8 },
        { rule: "links", detail: "caption links to denied domain \"evil.com\"", field: "caption" },
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
        {
          rule: "banned_words",
          detail: "platform_configurations.x.thread[2] contains banned word \"spam\"",
          field: "platform_configurations.x.thread[2]",
          span: { start: 0, end: 7, text: "s.p.a.m" }
        }
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
      expect(verdict).toEqual({
        allowed: true,
        violations: [],
        rules_checked: ["banned_words"],
        rules_skipped: ["banned_topics", "tone"],
        skipped: [
          { rule: "banned_topics", reason: "the classifier could not answer: no classifier is configured" },
          { rule: "tone", reason: "the classifier could not answer: no classifier is configured" }
        ]
      })
    }).pipe(Effect.provide(ClassifiersUnavailable)))

  it.effect("built-in: a topic or tone it does not know is skipped with the reason, never judged by its name", () =>
    Effect.gen(function*() {
      const verdict = yield* checkGuardrails(
        caption("Crypto crypto crypto! Vote in the senate election today"),
        settings({ banned_topics: ["crypto", "politics"], tone: "whimsical" }),
        { postsToday: null }
      )
      expectConsistent(verdict)
      expect(verdict.rules_checked).toEqual(["banned_topics"])
      expect(verdict.rules_skipped).toEqual(["banned_topics", "tone"])
      expect(verdict.violations.map(({ rule, topic }) => [rule, topic])).toEqual([["banned_topics", "politics"]])
      expect(verdict.skipped).toEqual([
        {
          rule: "banned_topics",
          reason: "the built-in classifier does not know the topic \"crypto\" (it knows politics, religion, gambling, violence; a project can teach it one with topic_terms)"
        },
        { rule: "tone", reason: "the built-in classifier does not know the tone \"whimsical\" (it knows professional, friendly)" }
      ])
    }).pipe(Effect.provide(BuiltinClassifier)))

  it.effect("built-in: project topic_terms teach a new topic and extend a known one", () =>
    Effect.gen(function*() {
      const taught = settings({ banned_topics: ["Crypto", "religion"], topic_terms: { crypto: ["bitcoin", "nft drop"], Religion: ["nirvana"] } })
      const verdict = yield* checkGuardrails(
        [{ field: "caption", text: "Our NFT   drop is live" }, { field: "signature", text: "reach n1rvana with our tea" }],
        taught,
        { postsToday: null }
      )
      expectConsistent(verdict)
      expect(verdict.rules_skipped).toEqual([])
      expect(verdict.violations).toEqual([
        { rule: "banned_topics", detail: "caption is about banned topic \"Crypto\" (score 1; nft drop)", field: "caption", topic: "Crypto", score: 1 },
        { rule: "banned_topics", detail: "signature is about banned topic \"religion\" (score 1; nirvana)", field: "signature", topic: "religion", score: 1 }
      ])
    }).pipe(Effect.provide(BuiltinClassifier)))

  it.effect("built-in: judges by what a text is about, not by one word (hard negatives pass)", () =>
    Effect.gen(function*() {
      const rules = settings({ banned_topics: ["politics", "gambling"], tone: "professional" })
      const about = yield* checkGuardrails(caption("Polls open tomorrow: vote for your senator in the election"), rules, { postsToday: null })
      expect(about.violations.map(({ topic }) => topic)).toEqual(["politics"])
      expect(about.violations[0]!.score).toBeGreaterThanOrEqual(0.5)
      const sports = yield* checkGuardrails(caption("Our rowing club elects its new team captain after training on Thursday"), rules, { postsToday: null })
      expect(sports.violations).toEqual([])
      const slang = yield* checkGuardrails(caption("lol this drop is lit af, no cap"), rules, { postsToday: null })
      expect(slang.violations.map(({ rule }) => rule)).toEqual(["tone"])
    }).pipe(Effect.provide(BuiltinClassifier)))

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
      ).pipe(Effect.provide(classifierInMemory((text, question) => {
        calls.push(text)
        return {
          topics: text === "same words" ? [{ topic: question.topics[0]!, score: 0.75, evidence: [] }] : [],
          tone: Option.none()
        }
      })))
      expect(calls.sort()).toEqual(["same words", "sig"])
      expect(verdict.violations.map(({ field, topic }) => [field, topic])).toEqual([
        ["caption", "politics"],
        ["platform_configurations.x.caption", "politics"]
      ])
    }))

  it.effect("posting cap: below the cap passes, at the cap blocks, unknown count is skipped", () =>
    Effect.gen(function*() {
      const capped = settings({ daily_post_cap: 3 })
      const below = yield* checkGuardrails(caption("hi"), capped, { postsToday: 2 })
      const at = yield* checkGuardrails(caption("hi"), capped, { postsToday: 3 })
      const unknown = yield* checkGuardrails(caption("hi"), capped, { postsToday: null })
      expect(below).toMatchObject({ allowed: true, rules_checked: ["posting_cap"] })
      expect(at).toMatchObject({ allowed: false, rules_checked: ["posting_cap"] })
      expect(unknown).toEqual({
        allowed: true,
        violations: [],
        rules_checked: [],
        rules_skipped: ["posting_cap"],
        skipped: [{ rule: "posting_cap", reason: "the number of posts created today is not known here" }]
      })
    }).pipe(Effect.provide(ClassifiersUnavailable)))

  it.effect("blank terms, topics and tone count as not configured", () =>
    Effect.gen(function*() {
      const verdict = yield* checkGuardrails(caption("x"), settings({ banned_words: [" "], banned_topics: [""], tone: "  " }), {
        postsToday: null
      })
      expect(verdict.rules_checked).toEqual([])
      expect(verdict.rules_skipped).toEqual([])
    }).pipe(Effect.provide(ClassifiersUnavailable)))
})
