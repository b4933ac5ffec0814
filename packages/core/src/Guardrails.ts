import { Effect, Option, Schema } from "effect"
import { GuardrailViolation } from "./Errors.js"
import { type BannedTermMatcher, bannedTermMatcher } from "./guardrails/BannedTerms.js"
import { checkLinks } from "./guardrails/LinkPolicy.js"
import type { OutboundText } from "./guardrails/OutboundText.js"
import { Classifier, type ClassifierQuestion } from "./ports/Classifiers.js"
import type { GuardrailSettings } from "./Project.js"
import { inSpan } from "./Tracing.js"

export * from "./guardrails/BannedTerms.js"
export * from "./guardrails/BuiltinLexicon.js"
export * from "./guardrails/Classifiers.js"
export * from "./guardrails/Lexicon.js"
export * from "./guardrails/LinkPolicy.js"
export * from "./guardrails/OutboundText.js"

/** The rules, in the order they are checked and reported. */
export const GuardrailRule = Schema.Literal("banned_words", "banned_topics", "tone", "links", "posting_cap")
export type GuardrailRule = typeof GuardrailRule.Type

/** Why a configured rule, or part of it, could not answer. */
export const SkippedRule = Schema.Struct({ rule: Schema.String, reason: Schema.String })
export type SkippedRule = typeof SkippedRule.Type

/**
 * The answer of a guardrail check. rules_checked lists the configured rules that answered (empty:
 * nothing is configured, so allowed means only that nothing objected); rules_skipped lists the
 * configured rules that could not answer, wholly or in part (a classifier unavailable, a topic or
 * tone the classifier does not know, an unknown post count), and `skipped` says why, one entry
 * per reason. A rule part of which answered is in both lists: what answered is enforced.
 */
export const GuardrailVerdict = Schema.Struct({
  allowed: Schema.Boolean,
  violations: Schema.Array(GuardrailViolation),
  rules_checked: Schema.Array(Schema.String),
  rules_skipped: Schema.Array(Schema.String),
  skipped: Schema.Array(SkippedRule)
})
export type GuardrailVerdict = typeof GuardrailVerdict.Type

/** What one configured rule concluded: its violations if any part of it answered, and why any part did not. */
interface Outcome {
  readonly rule: GuardrailRule
  readonly violations: Option.Option<ReadonlyArray<GuardrailViolation>>
  readonly skipped: ReadonlyArray<string>
}

const checked = (rule: GuardrailRule, violations: ReadonlyArray<GuardrailViolation>): Outcome => ({
  rule,
  violations: Option.some(violations),
  skipped: []
})

const skipped = (rule: GuardrailRule, reason: string): Outcome => ({ rule, violations: Option.none(), skipped: [reason] })

const nonBlank = (values: ReadonlyArray<string>): ReadonlyArray<string> =>
  values.map((value) => value.trim()).filter((value) => value !== "")

/** Identical texts (a platform caption repeating the caption) are classified once, for all their fields. */
const byText = (texts: ReadonlyArray<OutboundText>): ReadonlyArray<{ readonly text: string; readonly fields: ReadonlyArray<string> }> => {
  const fields = new Map<string, Array<string>>()
  for (const { field, text } of texts) fields.set(text, [...(fields.get(text) ?? []), field])
  return [...fields].map(([text, names]) => ({ text, fields: names }))
}

const rounded = (score: number): number => Math.round(score * 1000) / 1000

// Classifiers that answer over the network are asked about several texts at once; one text needs no fork.
const classifierConcurrency = 4

/**
 * banned_topics and tone, through the Classifier: the topics and tone it does not know are skipped
 * with its reason; the rest is asked once per distinct text. The classifier rules fail open: one
 * unavailable answer skips both rules whole, so a verdict never mixes checked and unchecked fields.
 */
const checkClassified = (texts: ReadonlyArray<OutboundText>, question: ClassifierQuestion) =>
  Effect.flatMap(Classifier, (classifier) => {
    const gaps = classifier.gaps(question)
    const unknownTopics = new Set(gaps.topics.map(({ topic }) => topic))
    const asked: ClassifierQuestion = {
      ...question,
      topics: question.topics.filter((topic) => !unknownTopics.has(topic)),
      tone: gaps.tone === null ? question.tone : null
    }
    const topicGaps = gaps.topics.map(({ reason }) => reason)
    const toneGaps = gaps.tone === null ? [] : [gaps.tone]
    const unanswered = (rule: GuardrailRule, asked: boolean, gaps: ReadonlyArray<string>): ReadonlyArray<Outcome> =>
      asked || gaps.length > 0 ? [{ rule, violations: Option.none(), skipped: gaps }] : []
    if (asked.topics.length === 0 && asked.tone === null) {
      return Effect.succeed([...unanswered("banned_topics", false, topicGaps), ...unanswered("tone", false, toneGaps)])
    }
    const judged = ({ fields, text }: { readonly text: string; readonly fields: ReadonlyArray<string> }) =>
      classifier.classify(text, asked).pipe(Effect.map((answer) => ({
        topics: answer.topics.flatMap(({ evidence, score, topic }) =>
          fields.map((field): GuardrailViolation => ({
            rule: "banned_topics",
            detail: `${field} is about banned topic "${topic}" (score ${rounded(score)}${evidence.length > 0 ? `; ${evidence.join(", ")}` : ""})`,
            field,
            topic,
            score: rounded(score)
          }))
        ),
        tone: Option.match(answer.tone, {
          onNone: () => [],
          onSome: ({ reason, score }) =>
            fields.map((field): GuardrailViolation => ({
              rule: "tone",
              detail: `${field} does not fit the tone "${asked.tone}" (score ${rounded(score)}): ${reason}`,
              field,
              score: rounded(score)
            }))
        })
      })))
    const distinct = byText(texts)
    // One distinct text (the common case) is one question: no forEach around it.
    const answered = distinct.length === 1
      ? Effect.map(judged(distinct[0]!), (answer) => [answer])
      : Effect.forEach(distinct, judged, { concurrency: classifierConcurrency })
    return answered.pipe(
      Effect.map((answers): ReadonlyArray<Outcome> => [
        ...(asked.topics.length > 0
          ? [{ rule: "banned_topics" as const, violations: Option.some(answers.flatMap(({ topics }) => topics)), skipped: topicGaps }]
          : unanswered("banned_topics", false, topicGaps)),
        ...(asked.tone !== null
          ? [{ rule: "tone" as const, violations: Option.some(answers.flatMap(({ tone }) => tone)), skipped: toneGaps }]
          : unanswered("tone", false, toneGaps))
      ]),
      Effect.catchTag("ClassifierUnavailable", (error) => {
        const reason = `the classifier could not answer: ${error.detail}`
        return Effect.logWarning(`guardrail rules banned_topics and tone skipped: ${error.detail}`).pipe(Effect.as([
          ...unanswered("banned_topics", question.topics.length > 0, [...(asked.topics.length > 0 ? [reason] : []), ...topicGaps]),
          ...unanswered("tone", question.tone !== null, [...(asked.tone !== null ? [reason] : []), ...toneGaps])
        ]))
      })
    )
  })

const checkBannedWords = (texts: ReadonlyArray<OutboundText>, matcher: BannedTermMatcher): Outcome =>
  checked(
    "banned_words",
    texts.flatMap(({ field, text }) =>
      matcher.find(text).map(({ span, term }): GuardrailViolation => ({
        rule: "banned_words",
        detail: `${field} contains banned word "${term}"`,
        field,
        ...(span === undefined ? {} : { span: { ...span, text: text.slice(span.start, span.end) } })
      }))
    )
  )

/** Posts created today include this one once it is created: at the cap, one more would exceed it. */
const checkPostingCap = (cap: number, postsToday: number | null): Outcome =>
  postsToday === null
    ? skipped("posting_cap", "the number of posts created today is not known here")
    : checked(
      "posting_cap",
      postsToday >= cap
        ? [{ rule: "posting_cap", detail: `this key already created ${postsToday} post${postsToday === 1 ? "" : "s"} today; its daily cap is ${cap}` }]
        : []
    )

/**
 * Runs every configured rule over every outbound text. Never fails: an unavailable classifier, a
 * topic or tone it does not know, or an unknown post count puts its rule in rules_skipped.
 */
export const checkGuardrails = Effect.fnUntraced(
  function*(texts: ReadonlyArray<OutboundText>, settings: GuardrailSettings, context: { readonly postsToday: number | null }) {
    // Compiled once per list (cached on the array, then on its content); blank terms compile to nothing.
    const bannedWords = bannedTermMatcher(settings.banned_words)
    const topics = nonBlank(settings.banned_topics)
    const tone = settings.tone?.trim() ?? ""
    // Forking costs more than a whole banned-word check: the classifier only when a rule needs it.
    const classified = topics.length > 0 || tone !== ""
      ? yield* checkClassified(texts, { topics, tone: tone === "" ? null : tone, topicTerms: settings.topic_terms ?? {} })
      : []
    const configured: ReadonlyArray<Outcome> = [
      ...(bannedWords.size > 0 ? [checkBannedWords(texts, bannedWords)] : []),
      ...classified,
      ...(settings.links !== null ? [checked("links", checkLinks(texts, settings.links))] : []),
      ...(settings.daily_post_cap !== null ? [checkPostingCap(settings.daily_post_cap, context.postsToday)] : [])
    ]
    const violations = configured.flatMap(({ violations }) => Option.getOrElse(violations, () => []))
    const verdict: GuardrailVerdict = {
      allowed: violations.length === 0,
      violations,
      rules_checked: configured.filter(({ violations }) => Option.isSome(violations)).map(({ rule }) => rule),
      rules_skipped: configured.filter(({ skipped }) => skipped.length > 0).map(({ rule }) => rule),
      skipped: configured.flatMap(({ rule, skipped }) => skipped.map((reason) => ({ rule, reason })))
    }
    return verdict
  },
  inSpan("checkGuardrails")
)
