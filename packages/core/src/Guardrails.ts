import { Array as Arr, Effect, Option, Schema } from "effect"
import { GuardrailViolation } from "./Errors.js"
import { type BannedTermMatcher, bannedTermMatcher } from "./guardrails/BannedTerms.js"
import { checkLinks } from "./guardrails/LinkPolicy.js"
import type { OutboundText } from "./guardrails/OutboundText.js"
import { type ClassifierUnavailable, ToneClassifier, TopicClassifier } from "./ports/Classifiers.js"
import type { GuardrailSettings } from "./Project.js"
import { inSpan } from "./Tracing.js"

export * from "./guardrails/BannedTerms.js"
export * from "./guardrails/Classifiers.js"
export * from "./guardrails/LinkPolicy.js"
export * from "./guardrails/OutboundText.js"

/** The rules, in the order they are checked and reported. */
export const GuardrailRule = Schema.Literal("banned_words", "banned_topics", "tone", "links", "posting_cap")
export type GuardrailRule = typeof GuardrailRule.Type

/**
 * The answer of a guardrail check. rules_checked lists the configured rules that answered (empty:
 * nothing is configured, so allowed means only that nothing objected); rules_skipped lists the
 * configured rules that could not answer (a classifier unavailable, an unknown post count).
 */
export const GuardrailVerdict = Schema.Struct({
  allowed: Schema.Boolean,
  violations: Schema.Array(GuardrailViolation),
  rules_checked: Schema.Array(Schema.String),
  rules_skipped: Schema.Array(Schema.String)
})
export type GuardrailVerdict = typeof GuardrailVerdict.Type

/** What one configured rule concluded: its violations, or None when it could not answer. */
type Outcome = readonly [GuardrailRule, Option.Option<ReadonlyArray<GuardrailViolation>>]

const checked = (rule: GuardrailRule, violations: ReadonlyArray<GuardrailViolation>): Outcome =>
  [rule, Option.some(violations)]

const nonBlank = (values: ReadonlyArray<string>): ReadonlyArray<string> => values.filter((value) => value.trim() !== "")

/** Identical texts (a platform caption repeating the caption) are classified once, for all their fields. */
const byText = (texts: ReadonlyArray<OutboundText>): ReadonlyArray<{ readonly text: string; readonly fields: string }> => {
  const fields = new Map<string, Array<string>>()
  for (const { field, text } of texts) fields.set(text, [...(fields.get(text) ?? []), field])
  return [...fields].map(([text, names]) => ({ text, fields: names.join(", ") }))
}

// The classifier rules fail open: one unavailable answer skips the whole rule, so a verdict never
// mixes checked and unchecked fields of the same rule.
const failOpen = (rule: GuardrailRule) => (error: ClassifierUnavailable) =>
  Effect.logWarning(`guardrail rule ${rule} skipped: ${error.detail}`).pipe(
    Effect.as<Outcome>([rule, Option.none()])
  )

const classifierConcurrency = 4

const checkTopics = (texts: ReadonlyArray<OutboundText>, topics: ReadonlyArray<string>) =>
  Effect.flatMap(TopicClassifier, (classifier) =>
    Effect.forEach(byText(texts), ({ fields, text }) =>
      classifier.classify(text, topics).pipe(
        Effect.map((found) =>
          found.map(({ detail, topic }): GuardrailViolation => ({
            rule: "banned_topics",
            detail: `${fields} is about banned topic "${topic}": ${detail}`
          }))
        )
      ), { concurrency: classifierConcurrency })).pipe(
      Effect.map((violations) => checked("banned_topics", violations.flat())),
      Effect.catchTag("ClassifierUnavailable", failOpen("banned_topics"))
    )

const checkTone = (texts: ReadonlyArray<OutboundText>, tone: string) =>
  Effect.flatMap(ToneClassifier, (classifier) =>
    Effect.forEach(byText(texts), ({ fields, text }) =>
      classifier.assess(text, tone).pipe(
        Effect.map(Option.map((reason): GuardrailViolation => ({
          rule: "tone",
          detail: `${fields} does not fit the tone "${tone}": ${reason}`
        })))
      ), { concurrency: classifierConcurrency })).pipe(
      Effect.map((answers) => checked("tone", Arr.getSomes(answers))),
      Effect.catchTag("ClassifierUnavailable", failOpen("tone"))
    )

const checkBannedWords = (texts: ReadonlyArray<OutboundText>, matcher: BannedTermMatcher): Outcome =>
  checked(
    "banned_words",
    texts.flatMap(({ field, text }) =>
      matcher.find(text).map((term) => ({ rule: "banned_words", detail: `${field} contains banned word "${term}"` }))
    )
  )

/** Posts created today include this one once it is created: at the cap, one more would exceed it. */
const checkPostingCap = (cap: number, postsToday: number | null): Outcome =>
  postsToday === null
    ? ["posting_cap", Option.none()]
    : checked(
      "posting_cap",
      postsToday >= cap
        ? [{ rule: "posting_cap", detail: `this key already created ${postsToday} post${postsToday === 1 ? "" : "s"} today; its daily cap is ${cap}` }]
        : []
    )

/**
 * Runs every configured rule over every outbound text. Never fails: an unavailable classifier or
 * an unknown post count puts its rule in rules_skipped.
 */
export const checkGuardrails = Effect.fnUntraced(
  function*(texts: ReadonlyArray<OutboundText>, settings: GuardrailSettings, context: { readonly postsToday: number | null }) {
    // Compiled once per list (cached on the array, then on its content); blank terms compile to nothing.
    const bannedWords = bannedTermMatcher(settings.banned_words)
    const topics = nonBlank(settings.banned_topics)
    const tone = settings.tone?.trim() ?? ""
    const classifierRules = [
      ...(topics.length > 0 ? [checkTopics(texts, topics)] : []),
      ...(tone !== "" ? [checkTone(texts, tone)] : [])
    ]
    // Forking costs more than a whole banned-word check: only when a classifier is asked.
    const classified = classifierRules.length > 0 ? yield* Effect.all(classifierRules, { concurrency: "unbounded" }) : []
    const configured: ReadonlyArray<Outcome> = [
      ...(bannedWords.size > 0 ? [checkBannedWords(texts, bannedWords)] : []),
      ...classified,
      ...(settings.links !== null ? [checked("links", checkLinks(texts, settings.links))] : []),
      ...(settings.daily_post_cap !== null ? [checkPostingCap(settings.daily_post_cap, context.postsToday)] : [])
    ]
    const violations = configured.flatMap(([, result]) => Option.getOrElse(result, () => []))
    const verdict: GuardrailVerdict = {
      allowed: violations.length === 0,
      violations,
      rules_checked: configured.filter(([, result]) => Option.isSome(result)).map(([rule]) => rule),
      rules_skipped: configured.filter(([, result]) => Option.isNone(result)).map(([rule]) => rule)
    }
    return verdict
  },
  inSpan("checkGuardrails")
)
