import { Context, type Effect, type Option, Schema } from "effect"

/** A classifier could not answer; guardrails fail open and report the rule in rules_skipped with this detail. */
export class ClassifierUnavailable extends Schema.TaggedError<ClassifierUnavailable>()("ClassifierUnavailable", {
  detail: Schema.String
}) {}

/** What a project's guardrails ask of a classifier: its banned topics, its tone, its own topic terms. */
export interface ClassifierQuestion {
  /** Banned topics, trimmed, none blank. */
  readonly topics: ReadonlyArray<string>
  /** The tone every text must fit, trimmed; null when no tone is configured. */
  readonly tone: string | null
  /** Terms the project adds to a topic (whole words, any case): a text naming one is about the topic. */
  readonly topicTerms: Readonly<Record<string, ReadonlyArray<string>>>
}

/** A banned topic a text is about, how sure the classifier is (0..1), and the words that told it. */
export interface TopicFinding {
  readonly topic: string
  readonly score: number
  readonly evidence: ReadonlyArray<string>
}

/** A text misses the tone: how sure the classifier is (0..1) and why. */
export interface ToneMiss {
  readonly score: number
  readonly reason: string
}

export interface ClassifierAnswer {
  readonly topics: ReadonlyArray<TopicFinding>
  /** None when the text fits the tone, or when no tone was asked. */
  readonly tone: Option.Option<ToneMiss>
}

/** What a classifier cannot judge, known before any text is read: each with the reason. */
export interface ClassifierGaps {
  readonly topics: ReadonlyArray<{ readonly topic: string; readonly reason: string }>
  /** Why the tone cannot be judged, or null when it can (or none was asked). */
  readonly tone: string | null
}

/**
 * Classifies outbound texts for the banned_topics and tone rules. `gaps` names the topics and
 * tone it does not know (those parts of the rules are skipped, never judged by name); `classify`
 * is asked only about the rest, once per distinct text.
 */
export class Classifier extends Context.Tag("@herald/core/Classifier")<Classifier, {
  readonly gaps: (question: ClassifierQuestion) => ClassifierGaps
  readonly classify: (text: string, question: ClassifierQuestion) => Effect.Effect<ClassifierAnswer, ClassifierUnavailable>
}>() {}
