import { Effect, Layer, Option } from "effect"
import { ClassifierUnavailable, ToneClassifier, TopicClassifier } from "../ports/Classifiers.js"
import { bannedTermMatcher } from "./BannedTerms.js"

/** For deployments with no topic classifier: banned_topics is always reported in rules_skipped. */
export const TopicClassifierUnavailable = Layer.succeed(TopicClassifier, {
  classify: () => Effect.fail(new ClassifierUnavailable({ detail: "no topic classifier is configured" }))
})

/** For deployments with no tone classifier: tone is always reported in rules_skipped. */
export const ToneClassifierUnavailable = Layer.succeed(ToneClassifier, {
  assess: () => Effect.fail(new ClassifierUnavailable({ detail: "no tone classifier is configured" }))
})

export const ClassifiersUnavailable = Layer.merge(TopicClassifierUnavailable, ToneClassifierUnavailable)

/** An in-memory topic classifier answering with `judge` (tests, demos). */
export const topicClassifierInMemory = (
  judge: (text: string, topics: ReadonlyArray<string>) => ReadonlyArray<{ readonly topic: string; readonly detail: string }>
): Layer.Layer<TopicClassifier> =>
  Layer.succeed(TopicClassifier, { classify: (text, topics) => Effect.sync(() => judge(text, topics)) })

/** An in-memory tone classifier: `judge` returns why the text misses the tone, or null when it fits. */
export const toneClassifierInMemory = (
  judge: (text: string, tone: string) => string | null
): Layer.Layer<ToneClassifier> =>
  Layer.succeed(ToneClassifier, { assess: (text, tone) => Effect.sync(() => Option.fromNullable(judge(text, tone))) })

/**
 * A dependency-free topic classifier: a text is about a topic when it names the topic as a whole
 * word, with the same folding and evasion handling as banned words. Crude, but it runs offline.
 */
export const TopicClassifierByName = topicClassifierInMemory((text, topics) => {
  const named = new Set(bannedTermMatcher(topics).find(text))
  return topics
    .filter((topic) => named.has(topic.trim()))
    .map((topic) => ({ topic, detail: `the text names "${topic.trim()}"` }))
})
