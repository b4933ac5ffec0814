/**
 * XRPC over HTTP (https://atproto.com/specs/xrpc): queries are GETs with URL parameters,
 * procedures POSTs with a JSON or raw body, both under /xrpc/<nsid>. A refusal carries the error
 * envelope `{ error, message }`; rate limits carry RateLimit-Reset in epoch seconds.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Clock, Context, Data, Duration, Effect, Option, Schema } from "effect"

/** The server answered with an error: its status, the envelope's name and message, when to retry. */
export class XrpcRefused extends Data.TaggedError("XrpcRefused")<{
  readonly status: number
  readonly error: string
  readonly message: string
  readonly retryAfterMs: number | null
}> {}

/** No usable answer: the exchange broke off, ran past its deadline, or the reply broke the lexicon. */
export class XrpcNoAnswer extends Data.TaggedError("XrpcNoAnswer")<{ readonly detail: string }> {}

export type XrpcFailure = XrpcRefused | XrpcNoAnswer

export type CallKind = "read" | "publish" | "upload"

/** How long each kind of call may take before its answer is given up on (shorter in tests). */
export class Deadlines extends Context.Reference<Deadlines>()("@herald/publishers/bluesky/Deadlines", {
  defaultValue: (): Readonly<Record<CallKind, Duration.Duration>> => ({
    read: Duration.seconds(15),
    publish: Duration.seconds(30),
    upload: Duration.minutes(3)
  })
}) {}

const Envelope = Schema.Struct({ error: Schema.optional(Schema.String), message: Schema.optional(Schema.String) })

const retryAfterOf = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<number | null> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const seconds = Number(response.headers["retry-after"])
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
    const reset = Number(response.headers["ratelimit-reset"])
    return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - now) : null
  })

const refusal = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<XrpcRefused> =>
  Effect.gen(function*() {
    const text = yield* Effect.orElseSucceed(response.text, () => "")
    const envelope = Option.getOrElse(
      Schema.decodeUnknownOption(Schema.parseJson(Envelope))(text),
      () => ({ error: undefined, message: undefined })
    )
    return new XrpcRefused({
      status: response.status,
      error: envelope.error ?? `HTTP ${response.status}`,
      message: envelope.message ?? (text.slice(0, 200) || `the server answered ${response.status}`),
      retryAfterMs: yield* retryAfterOf(response)
    })
  })

export interface XrpcCall<A, I> {
  readonly kind: CallKind
  readonly request: HttpClientRequest.HttpClientRequest
  readonly reply: Schema.Schema<A, I>
}

/** Sends the call and reads its reply by the lexicon's schema. */
export const send = <A, I>(call: XrpcCall<A, I>): Effect.Effect<A, XrpcFailure, HttpClient.HttpClient> =>
  Effect.flatMap(Deadlines, (deadlines) => exchange(call, deadlines[call.kind]))

const exchange = <A, I>(call: XrpcCall<A, I>, deadline: Duration.Duration) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(call.request)
    if (response.status >= 300) return yield* Effect.flip(refusal(response))
    const body = yield* response.json
    return yield* Schema.decodeUnknown(call.reply)(body)
  }).pipe(
    Effect.scoped,
    Effect.timeoutFail({
      duration: deadline,
      onTimeout: () => new XrpcNoAnswer({ detail: `no answer within ${Duration.format(deadline)}` })
    }),
    Effect.catchTags({
      RequestError: (error) => Effect.fail(new XrpcNoAnswer({ detail: error.message })),
      ResponseError: (error) => Effect.fail(new XrpcNoAnswer({ detail: error.message })),
      ParseError: (error) => Effect.fail(new XrpcNoAnswer({ detail: `the reply broke the lexicon: ${error.message}` }))
    })
  )

const path = (base: string, nsid: string) => `${base.replace(/\/$/, "")}/xrpc/${nsid}`

/** A query (GET) with URL parameters. */
export const query = (base: string, nsid: string, params: Record<string, string | ReadonlyArray<string>>, token?: string) =>
  HttpClientRequest.get(path(base, nsid)).pipe(
    HttpClientRequest.setUrlParams(params),
    token === undefined ? (request) => request : HttpClientRequest.bearerToken(token)
  )

/** A procedure (POST) with a JSON body, or none (undefined). */
export const procedure = (base: string, nsid: string, body: unknown, token?: string) =>
  HttpClientRequest.post(path(base, nsid)).pipe(
    body === undefined ? (request) => request : HttpClientRequest.bodyUnsafeJson(body),
    token === undefined ? (request) => request : HttpClientRequest.bearerToken(token)
  )

/** A procedure (POST) whose body is raw bytes of the given type (uploadBlob). */
export const upload = (base: string, nsid: string, bytes: Uint8Array, mime: string, token: string) =>
  HttpClientRequest.post(path(base, nsid)).pipe(
    HttpClientRequest.bodyUint8Array(bytes, mime),
    HttpClientRequest.bearerToken(token)
  )
