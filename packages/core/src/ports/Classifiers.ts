import { Context, type Effect, type Option, Schema } from "effect"

/** A classifier could not answer; guardrails fail open and report the rule in rules_skipped. */
export class ClassifierUnavailable extends Schema.TaggedError<ClassifierUnavailable>()("ClassifierUnavailable", {
  detail: Schema.String
}) {}

export class TopicClassifier extends Context.Tag("@herald/core/TopicClassifier")<TopicClassifier, {
  /** The banned topics the text is about, each with a short reason. */
  readonly classify: (
    text: string,
    topics: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<{ readonly topic: string; readonly detail: string }>, ClassifierUnavailable>
}>() {}

export class ToneClassifier extends Context.Tag("@herald/core/ToneClassifier")<ToneClassifier, {
  /** None when the text fits the tone; otherwise why it does not. */
  readonly assess: (text: string, tone: string) => Effect.Effect<Option.Option<string>, ClassifierUnavailable>
}>() {}
