import { Classifier, type ClassifierAnswer, type ClassifierQuestion, ClassifierUnavailable, namedTopics } from "@herald/core"
import { type OutboundError, OutboundGuard } from "@herald/outbound"
import { Duration, Effect, Layer, Option, Redacted, Schema } from "effect"

/** An OpenAI-compatible chat-completions endpoint (HERALD_CLASSIFIER_URL, _MODEL, _KEY, _TIMEOUT_MS). */
export interface LlmClassifierConfig {
  /** The API's base URL, e.g. https://api.openai.com/v1; the request goes to <url>/chat/completions. */
  readonly url: string
  readonly model: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  /** One deadline for the whole exchange; past it the rules are skipped (fail-open). */
  readonly timeout: Duration.DurationInput
}

// The model answers this shape; anything else is a malformed reply, and the rules are skipped.
const Reply = Schema.Struct({
  topics: Schema.Array(Schema.Struct({ topic: Schema.String, score: Schema.Number.pipe(Schema.between(0, 1)) })),
  tone: Schema.NullOr(Schema.Struct({
    fits: Schema.Boolean,
    score: Schema.Number.pipe(Schema.between(0, 1)),
    reason: Schema.String
  }))
})
const decodeReply = Schema.decodeUnknown(Schema.parseJson(Reply))

const Completion = Schema.Struct({
  choices: Schema.NonEmptyArray(Schema.Struct({ message: Schema.Struct({ content: Schema.String }) }))
})
const decodeCompletion = Schema.decodeUnknown(Schema.parseJson(Completion))

const instructions = [
  "You classify one social media post for a brand-safety check. Answer with one JSON object only:",
  "{\"topics\": [{\"topic\": <one of the listed topics>, \"score\": <0..1, how clearly the post is about it>}],",
  "\"tone\": null when no tone is given, else {\"fits\": <boolean>, \"score\": <0..1, how clearly it misses the tone>, \"reason\": <short>}}.",
  "List every listed topic with its score. A word alone does not make a post about a topic: judge what the post is about."
].join(" ")

const prompt = (text: string, question: ClassifierQuestion): string =>
  JSON.stringify({ topics: question.topics, tone: question.tone, post: text })

const belongs = 0.5
const maxReplyBytes = 64 * 1024

const unavailable = (detail: string) => new ClassifierUnavailable({ detail })

/**
 * The LLM-backed classifier: one chat-completions request per distinct text, through the outbound
 * guard, with a deadline. A timeout, a refused or failed request, a non-2xx status or a reply that
 * is not the JSON asked for is ClassifierUnavailable (guardrails fail open and say why); the key
 * never appears in a detail. It knows every topic and tone (no gaps); a project's topic_terms are
 * applied as by the built-in classifier before the model is asked.
 */
export const llmClassifier = (config: LlmClassifierConfig): Layer.Layer<Classifier, never, OutboundGuard> =>
  Layer.effect(
    Classifier,
    Effect.map(OutboundGuard, (guard) => {
      const endpoint = `${config.url.replace(/\/+$/, "")}/chat/completions`
      const headers: Record<string, string> = {
        "content-type": "application/json",
        ...Option.match(config.apiKey, { onNone: () => ({}), onSome: (key) => ({ authorization: `Bearer ${Redacted.value(key)}` }) })
      }
      const ask = (text: string, question: ClassifierQuestion) =>
        Effect.scoped(Effect.gen(function*() {
          const response = yield* guard.request({
            method: "POST",
            url: endpoint,
            headers,
            body: JSON.stringify({
              model: config.model,
              temperature: 0,
              response_format: { type: "json_object" },
              messages: [{ role: "system", content: instructions }, { role: "user", content: prompt(text, question) }]
            }),
            timeout: config.timeout,
            maxBytes: maxReplyBytes
          })
          const body = new TextDecoder().decode(yield* response.body.bytes)
          if (response.status < 200 || response.status > 299) {
            return yield* unavailable(`the classifier endpoint answered HTTP ${response.status}`)
          }
          const completion = yield* decodeCompletion(body).pipe(
            Effect.mapError(() => unavailable("the classifier endpoint's reply is not a chat completion"))
          )
          return yield* decodeReply(completion.choices[0].message.content).pipe(
            Effect.mapError(() => unavailable("the classifier model did not answer the JSON asked for"))
          )
        })).pipe(
          Effect.catchIf(
            (error): error is OutboundError => error._tag !== "ClassifierUnavailable",
            (error) => Effect.fail(unavailable(outboundDetail(error)))
          )
        )
      return Classifier.of({
        gaps: () => ({ topics: [], tone: null }),
        classify: (text, question) => {
          const named = namedTopics(text, question)
          const rest = { ...question, topics: question.topics.filter((topic) => !named.some((found) => found.topic === topic)) }
          if (rest.topics.length === 0 && rest.tone === null) return Effect.succeed({ topics: named, tone: Option.none() })
          return Effect.map(ask(text, rest), (reply): ClassifierAnswer => ({
            topics: [
              ...named,
              ...reply.topics.filter(({ score, topic }) => score >= belongs && rest.topics.includes(topic))
                .map(({ score, topic }) => ({ topic, score, evidence: [] }))
            ],
            tone: rest.tone !== null && reply.tone !== null && !reply.tone.fits
              ? Option.some({ score: reply.tone.score, reason: reply.tone.reason })
              : Option.none()
          }))
        }
      })
    })
  )

const outboundDetail = (error: OutboundError): string => {
  switch (error._tag) {
    case "OutboundTimeout":
      return "the classifier endpoint did not answer before the deadline"
    case "OutboundRefused":
      return `the classifier endpoint was refused: ${error.reason}`
    case "ResponseTooLarge":
      return "the classifier endpoint's reply is too large"
    case "TooManyRedirects":
      return "the classifier endpoint redirected"
    case "OutboundFailed":
      return `the classifier endpoint could not be reached: ${error.detail}`
  }
}
