import { BuiltinClassifier } from "@herald/core"
import { llmClassifier } from "@herald/classifiers"
import { Config, Duration, Effect, Layer, Option } from "effect"

/**
 * The guardrails' classifier: the LLM-backed one when HERALD_CLASSIFIER_URL is set (an
 * OpenAI-compatible API base URL, with HERALD_CLASSIFIER_MODEL, HERALD_CLASSIFIER_KEY and
 * HERALD_CLASSIFIER_TIMEOUT_MS, default 3000), else the built-in offline classifier.
 */
export const classifierFromEnv = Layer.unwrapEffect(
  Effect.map(
    Config.all({
      url: Config.option(Config.string("HERALD_CLASSIFIER_URL")),
      model: Config.withDefault(Config.string("HERALD_CLASSIFIER_MODEL"), "gpt-4o-mini"),
      apiKey: Config.option(Config.redacted("HERALD_CLASSIFIER_KEY")),
      timeoutMillis: Config.withDefault(Config.integer("HERALD_CLASSIFIER_TIMEOUT_MS"), 3_000)
    }),
    ({ apiKey, model, timeoutMillis, url }) =>
      Option.match(url, {
        onNone: () => BuiltinClassifier,
        onSome: (url) => llmClassifier({ url, model, apiKey, timeout: Duration.millis(timeoutMillis) })
      })
  )
)
