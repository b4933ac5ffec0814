/**
 * LinkedIn's REST API as Herald calls it: every call under /rest carries the pinned
 * LinkedIn-Version and Rest.li protocol 2.0.0; a refusal carries LinkedIn's envelope
 * `{ status, serviceErrorCode, code, message, errorDetails }`.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Clock, Context, Data, Duration, Effect, Option, Schema } from "effect"

/**
 * The one place the API version is pinned. LinkedIn serves each monthly version for about a year
 * and then answers 426 NONEXISTENT_VERSION; bump it (and re-read the migration notes) yearly.
 */
export const linkedinVersion = "202608"
export const restliProtocol = "2.0.0"

/** LinkedIn answered with an error. `code` is its code (or input error code), `message` its message. */
export class LinkedinRefused extends Data.TaggedError("LinkedinRefused")<{
  readonly status: number
  readonly code: string
  readonly message: string
  readonly retryAfterMs: number | null
}> {}

/** No usable answer: the exchange broke off, ran past its deadline, or the reply was not LinkedIn's shape. */
export class LinkedinNoAnswer extends Data.TaggedError("LinkedinNoAnswer")<{ readonly detail: string }> {}

export type LinkedinFailure = LinkedinRefused | LinkedinNoAnswer

export type CallKind = "read" | "publish" | "upload"

/** How long each kind of call may take before its answer is given up on (tests shorten them). */
export class Deadlines extends Context.Reference<Deadlines>()("@herald/publishers/linkedin/Deadlines", {
  defaultValue: (): Readonly<Record<CallKind, Duration.Duration>> => ({
    read: Duration.seconds(15),
    publish: Duration.seconds(30),
    upload: Duration.minutes(3)
  })
}) {}

const Envelope = Schema.Struct({
  status: Schema.optional(Schema.Number),
  serviceErrorCode: Schema.optional(Schema.Number),
  code: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  // The OAuth endpoints answer in OAuth's shape instead.
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String),
  errorDetails: Schema.optional(Schema.Struct({
    inputErrors: Schema.optional(Schema.Array(Schema.Struct({ code: Schema.optional(Schema.String) })))
  }))
})

const hourMs = 60 * 60 * 1000

/**
 * LinkedIn's limits are daily quotas that reset at 00:00 UTC and its 429 carries no Retry-After
 * as a rule, without saying which quota ran out: Herald waits an hour (or until midnight UTC when
 * that is sooner) and asks again, unless LinkedIn did send a Retry-After.
 */
const retryAfterOf = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<number> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const header = response.headers["retry-after"]
    const seconds = Number(header)
    if (header !== undefined && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
    const date = header === undefined ? Number.NaN : Date.parse(header)
    if (!Number.isNaN(date)) return Math.max(0, date - now)
    const midnight = Math.ceil((now + 1) / (24 * hourMs)) * 24 * hourMs
    return Math.min(hourMs, midnight - now)
  })

const refusal = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<LinkedinRefused> =>
  Effect.gen(function*() {
    const text = yield* Effect.orElseSucceed(response.text, () => "")
    const envelope = Option.getOrElse(Schema.decodeUnknownOption(Schema.parseJson(Envelope))(text), () => ({} as typeof Envelope.Type))
    const inputCode = envelope.errorDetails?.inputErrors?.find((input) => input.code !== undefined)?.code
    return new LinkedinRefused({
      status: response.status,
      code: inputCode ?? envelope.code ?? envelope.error ??
        (envelope.serviceErrorCode === undefined ? `HTTP_${response.status}` : `SERVICE_ERROR_${envelope.serviceErrorCode}`),
      message: envelope.message ?? envelope.error_description ?? (text.slice(0, 200) || `LinkedIn answered ${response.status}`),
      retryAfterMs: response.status === 429 ? yield* retryAfterOf(response) : null
    })
  })

/** A successful answer: its status, headers and body text. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
}

/** Sends the request; a status of 300 or more is a LinkedinRefused. */
export const send = (request: HttpClientRequest.HttpClientRequest, kind: CallKind): Effect.Effect<Answer, LinkedinFailure, HttpClient.HttpClient> =>
  Effect.flatMap(Deadlines, (deadlines) =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(request)
      if (response.status >= 300) return yield* Effect.flip(refusal(response))
      const text = yield* response.text
      return { status: response.status, headers: response.headers, text }
    }).pipe(
      Effect.scoped,
      Effect.timeoutFail({
        duration: deadlines[kind],
        onTimeout: () => new LinkedinNoAnswer({ detail: `LinkedIn gave no answer within ${Duration.format(deadlines[kind])}` })
      })
    )).pipe(
    Effect.catchTags({
      RequestError: (error) => Effect.fail(new LinkedinNoAnswer({ detail: error.message })),
      ResponseError: (error) => Effect.fail(new LinkedinNoAnswer({ detail: error.message }))
    })
  )

/** Sends the request and reads its JSON body through `reply`; another shape is no usable answer. */
export const sendJson = <A, I>(request: HttpClientRequest.HttpClientRequest, kind: CallKind, reply: Schema.Schema<A, I>) =>
  Effect.flatMap(send(request, kind), (answer) =>
    Effect.mapError(
      Schema.decodeUnknown(Schema.parseJson(reply))(answer.text),
      (error) => new LinkedinNoAnswer({ detail: `LinkedIn's reply was not the documented shape: ${error.message}` })
    ))

/** A call to the versioned REST API (/rest/...) with the member's token. */
export const rest = (method: "GET" | "POST" | "DELETE", url: string, token: string) =>
  HttpClientRequest.make(method)(url).pipe(
    HttpClientRequest.bearerToken(token),
    HttpClientRequest.setHeaders({ "LinkedIn-Version": linkedinVersion, "X-Restli-Protocol-Version": restliProtocol })
  )

/** A URL under a base URL (which may carry a path of its own). */
export const under = (base: string, path: string) => `${base.replace(/\/$/, "")}${path}`
