import { Effect, Layer, Option } from "effect"
import {
  Classifier,
  type ClassifierAnswer,
  type ClassifierGaps,
  type ClassifierQuestion,
  ClassifierUnavailable,
  type TopicFinding
} from "../ports/Classifiers.js"
import { bannedTermMatcher } from "./BannedTerms.js"
import { builtinLexicon } from "./BuiltinLexicon.js"
import { compileLexicon, type Lexicon } from "./Lexicon.js"

const noGaps: ClassifierGaps = { topics: [], tone: null }

/** For deployments with no classifier: banned_topics and tone are always reported in rules_skipped. */
export const ClassifiersUnavailable = Layer.succeed(Classifier, {
  gaps: () => noGaps,
  classify: () => Effect.fail(new ClassifierUnavailable({ detail: "no classifier is configured" }))
})

/** An in-memory classifier answering with `judge`, knowing every topic and tone (tests, demos). */
export const classifierInMemory = (
  judge: (text: string, question: ClassifierQuestion) => ClassifierAnswer
): Layer.Layer<Classifier> =>
  Layer.succeed(Classifier, { gaps: () => noGaps, classify: (text, question) => Effect.sync(() => judge(text, question)) })

const nameKey = (name: string): string => name.trim().toLowerCase()
const listed = (names: ReadonlyArray<string>): string => names.join(", ")

/** The project's extra terms for one topic, whatever the case or spacing of the topic's key. */
const termsFor = (question: ClassifierQuestion, topic: string): ReadonlyArray<string> =>
  Object.entries(question.topicTerms).flatMap(([key, terms]) => (nameKey(key) === nameKey(topic) ? terms : []))

const belongs = 0.5

/**
 * The asked topics a text names one of the project's terms for (topic_terms): score 1, the terms
 * as evidence. Every classifier applies them the same way before judging the rest.
 */
export const namedTopics = (text: string, question: ClassifierQuestion): ReadonlyArray<TopicFinding> =>
  question.topics.flatMap((topic) => {
    const terms = termsFor(question, topic)
    // Most topics have no project terms: no scan of the text for them.
    if (terms.length === 0) return []
    const named = bannedTermMatcher(terms).find(text)
    return named.length > 0 ? [{ topic, score: 1, evidence: named.map(({ term }) => term) }] : []
  })

/**
 * The built-in offline classifier: a lexicon learned from the labelled set the repository ships
 * (Lexicon.ts), extended per project by `topic_terms` (a text naming one of a topic's terms is
 * about the topic, score 1, with the banned-word matcher's evasion handling). Topics and tones it
 * has no class for, and no project terms for, are gaps: never judged by their name.
 */
export const builtinClassifier = (lexicon: Lexicon): Layer.Layer<Classifier> => {
  const compiled = compileLexicon(lexicon)
  const knownTopics = new Set(compiled.topicNames)
  const knownTones = new Set(compiled.toneNames)
  const gaps = (question: ClassifierQuestion): ClassifierGaps => ({
    topics: question.topics
      .filter((topic) => !knownTopics.has(nameKey(topic)) && termsFor(question, topic).every((term) => term.trim() === ""))
      .map((topic) => ({
        topic,
        reason: `the built-in classifier does not know the topic "${topic}" (it knows ${
          listed(compiled.topicNames)
        }; a project can teach it one with topic_terms)`
      })),
    tone: question.tone === null || knownTones.has(nameKey(question.tone))
      ? null
      : `the built-in classifier does not know the tone "${question.tone}" (it knows ${listed(compiled.toneNames)})`
  })
  const classify = (text: string, question: ClassifierQuestion): ClassifierAnswer => {
    const scores = compiled.score(text)
    const named = namedTopics(text, question)
    const topics = question.topics.flatMap((topic): ReadonlyArray<TopicFinding> => {
      if (named.some((found) => found.topic === topic)) return []
      const scored = scores.get(nameKey(topic))
      return scored !== undefined && scored.score >= belongs ? [{ topic, ...scored }] : []
    })
    const tone = question.tone === null ? null : nameKey(question.tone)
    const toneScore = tone === null ? undefined : scores.get(tone)
    return {
      topics: [...named, ...topics],
      tone: toneScore !== undefined && toneScore.score >= belongs
        ? Option.some({ score: toneScore.score, reason: `it reads as not ${tone} (${listed(toneScore.evidence)})` })
        : Option.none()
    }
  }
  return Layer.succeed(Classifier, { gaps, classify: (text, question) => Effect.sync(() => classify(text, question)) })
}

/** The built-in classifier with the lexicon the repository ships (docs/guardrails.md lists what it knows). */
export const BuiltinClassifier = builtinClassifier(builtinLexicon)
