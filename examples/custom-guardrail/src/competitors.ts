import { Classifier } from "@herald/core"
import { Effect, Layer, Option } from "effect"

/**
 * A rule of your own: the banned topic "competitors" is any text naming one of `names` (whole
 * words, any case). Herald asks the classifier about the project's banned topics; this one knows
 * only "competitors" and says so for the others (Herald then lists them in rules_skipped).
 */
export const competitorsClassifier = (names: ReadonlyArray<string>) => {
  const named = new RegExp(`\\b(${names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})\\b`, "giu")
  return Layer.succeed(Classifier, Classifier.of({
    gaps: (question) => ({
      topics: question.topics.filter((topic) => topic !== "competitors").map((topic) => ({ topic, reason: `${topic}: this classifier knows only competitors` })),
      tone: question.tone === null ? null : "this classifier judges no tone"
    }),
    classify: (text, question) =>
      Effect.sync(() => {
        const evidence = [...new Set([...text.matchAll(named)].map((match) => match[0]))]
        const asked = question.topics.includes("competitors")
        return { topics: asked && evidence.length > 0 ? [{ topic: "competitors", score: 1, evidence }] : [], tone: Option.none() }
      })
  }))
}
