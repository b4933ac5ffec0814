import { type HttpClientError, HttpClientResponse } from "@effect/platform"
import type { Headers } from "@effect/platform/Headers"
import { AlreadyGone, type DeliveryError, type DeliveryErrorCategory, OutcomeUnknown, PlatformCallFailed, PublishFailed } from "@herald/core"
import { OutboundFailed, OutboundRefused, OutboundTimeout } from "@herald/outbound"
import { Clock, Data, Effect, type ParseResult, type Schema } from "effect"

/**
 * The platform answered, and its answer is a failure, classified by the platform's module onto
 * the taxonomy with its own code and message kept.
 */
export class PlatformRefusal extends Data.TaggedError("PlatformRefusal")<{
  readonly error: DeliveryError
  /** How long the platform asked Herald to wait (rate limits, 503s), or null. */
  readonly retryAfterMs: number | null
}> {}

/** What a platform call can fail with before Failures.ts turns it into core's errors. */
export type PlatformCallError = PlatformRefusal | HttpClientError.HttpClientError | ParseResult.ParseError

/** The category an HTTP status means when the platform's body says nothing more precise. */
export const categoryOfStatus = (status: number): DeliveryErrorCategory =>
  status === 401
    ? "auth_expired"
    : status === 403
    ? "permission_missing"
    : status === 404 || status === 410
    ? "not_found"
    : status === 429
    ? "rate_limited"
    : status === 413 || status === 415
    ? "media_rejected"
    : status >= 500 || status === 408
    ? "transient"
    : "content_rejected"

/** Epoch seconds look like this; anything smaller is a number of seconds to wait. */
const epochSecondsFloor = 1_000_000_000

const headerValue = (headers: Headers, name: string): string | undefined => headers[name.toLowerCase()]

/**
 * How long the platform asked Herald to wait, from its reply headers, in milliseconds (never
 * negative), or null when it did not say: `Retry-After` (seconds or an HTTP date), then
 * the reset headers (`x-rate-limit-reset`, `ratelimit-reset`, `x-ratelimit-reset`), read as epoch
 * seconds when they look like one (X, Bluesky) and as seconds to wait otherwise (the IETF draft).
 */
export const retryAfterMs = (headers: Headers, nowMillis: number): number | null => {
  const retryAfter = headerValue(headers, "retry-after")?.trim()
  if (retryAfter !== undefined && retryAfter !== "") {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000)
    const date = Date.parse(retryAfter)
    if (!Number.isNaN(date)) return Math.max(0, date - nowMillis)
  }
  for (const name of ["x-rate-limit-reset", "ratelimit-reset", "x-ratelimit-reset"]) {
    const value = headerValue(headers, name)?.trim()
    if (value === undefined || !/^\d+(\.\d+)?$/.test(value)) continue
    const seconds = Number(value)
    return seconds >= epochSecondsFloor ? Math.max(0, Math.round(seconds * 1000 - nowMillis)) : Math.round(seconds * 1000)
  }
  return null
}

/** Whether a failure of this category is worth trying again later (the dispatcher's backoff). */
export const isRetryable = (category: DeliveryErrorCategory): boolean =>
  category === "transient" || category === "rate_limited"

/**
 * A failed reply as a PlatformRefusal: `classify` reads the platform's error body (already
 * parsed as JSON when it is JSON, else its text) into a DeliveryError; the Retry-After comes
 * from the headers.
 */
export const refusal = (
  response: HttpClientResponse.HttpClientResponse,
  classify: Classify
): Effect.Effect<PlatformRefusal> =>
  Effect.gen(function*() {
    const text = yield* Effect.orElseSucceed(response.text, () => "")
    let body: unknown = text
    try {
      body = text === "" ? null : JSON.parse(text)
    } catch {
      // Not JSON: the classifier gets the text.
    }
    const now = yield* Clock.currentTimeMillis
    return new PlatformRefusal({
      error: classify({ status: response.status, body, headers: response.headers }),
      retryAfterMs: retryAfterMs(response.headers, now)
    })
  })

/** How a platform module reads its error replies onto the taxonomy. */
export type Classify = (reply: { readonly status: number; readonly body: unknown; readonly headers: Headers }) => DeliveryError

/**
 * A reply read with `schema` when its status is 2xx, else the platform's refusal as `classify`
 * reads it: the one step every platform call ends with.
 */
export const expectOk = <A, I>(schema: Schema.Schema<A, I>, classify: Classify) =>
(
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<A, PlatformRefusal | HttpClientError.ResponseError | ParseResult.ParseError> =>
  response.status >= 200 && response.status < 300
    ? HttpClientResponse.schemaBodyJson(schema)(response)
    : Effect.flatMap(refusal(response, classify), Effect.fail)

/** The guard's error behind a transport failure, if it was one. */
const transportCause = (error: HttpClientError.HttpClientError): unknown =>
  error._tag === "RequestError" && error.reason === "Transport" ? error.cause : undefined

/** A failure before the platform could have acted: refused destination, connection never made. */
const neverSent = (cause: unknown): boolean =>
  cause instanceof OutboundRefused ||
  cause instanceof OutboundFailed && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(cause.detail)

const describe = (error: Exclude<PlatformCallError, PlatformRefusal>): string => {
  if (error._tag === "ParseError") return `the platform's reply was not in the expected shape: ${error.message}`
  const cause = transportCause(error)
  if (cause instanceof OutboundTimeout || cause instanceof OutboundFailed || cause instanceof OutboundRefused) {
    return cause.message
  }
  return error.message
}

const destinationRefused = (cause: OutboundRefused): DeliveryError => ({
  category: "permission_missing",
  code: "destination_refused",
  message: cause.message
})

/**
 * A publish or takedown's failure as core's: a refusal is PublishFailed (retried when its
 * category is); anything after the request may have reached the platform (a timeout, a dropped
 * connection, a reply Herald cannot read) is OutcomeUnknown, so the dispatcher reconciles
 * instead of posting twice.
 */
export const publishFailure = (error: PlatformCallError): PublishFailed | OutcomeUnknown => {
  if (error._tag === "PlatformRefusal") {
    return new PublishFailed({ error: error.error, transient: isRetryable(error.error.category), retryAfterMs: error.retryAfterMs })
  }
  const cause = error._tag === "ParseError" ? undefined : transportCause(error)
  if (cause instanceof OutboundRefused) {
    return new PublishFailed({ error: destinationRefused(cause), transient: false, retryAfterMs: null })
  }
  if (neverSent(cause)) {
    return new PublishFailed({
      error: { category: "transient", code: "unreachable", message: describe(error as Exclude<PlatformCallError, PlatformRefusal>) },
      transient: true,
      retryAfterMs: null
    })
  }
  return new OutcomeUnknown({ detail: describe(error) })
}

/**
 * A read's failure as PlatformCallFailed: reads have no side effect, so no answer, a dropped
 * connection or an unreadable reply are `transient`.
 */
export const readFailure = (error: PlatformCallError): PlatformCallFailed => {
  if (error._tag === "PlatformRefusal") return new PlatformCallFailed({ error: error.error, retryAfterMs: error.retryAfterMs })
  const cause = error._tag === "ParseError" ? undefined : transportCause(error)
  if (cause instanceof OutboundRefused) return new PlatformCallFailed({ error: destinationRefused(cause), retryAfterMs: null })
  const code = cause instanceof OutboundTimeout ? "timeout" : error._tag === "ParseError" || error._tag === "ResponseError" ? "malformed_reply" : "unreachable"
  return new PlatformCallFailed({ error: { category: "transient", code, message: describe(error) }, retryAfterMs: null })
}

/** A read failure met while publishing (a token refresh, say) as the publish's failure. */
export const publishFailureOfRead = (failure: PlatformCallFailed): PublishFailed =>
  new PublishFailed({ error: failure.error, transient: isRetryable(failure.error.category), retryAfterMs: failure.retryAfterMs })

/** Runs a publish or takedown call, its failures as core's. */
export const asPublish = <A, R>(effect: Effect.Effect<A, PlatformCallError | PlatformCallFailed, R>) =>
  Effect.mapError(effect, (error) => error._tag === "PlatformCallFailed" ? publishFailureOfRead(error) : publishFailure(error))

/** Runs a read (metrics, probe, token, identity), its failures as core's. */
export const asRead = <A, R>(effect: Effect.Effect<A, PlatformCallError | PlatformCallFailed, R>) =>
  Effect.mapError(effect, (error) => error._tag === "PlatformCallFailed" ? error : readFailure(error))

/**
 * A takedown refused as not_found is AlreadyGone: the post is not there, removed on the platform
 * already, perhaps by an earlier call whose answer was lost.
 */
export const goneWhenNotFound = (detail: string) => <A, R>(takedown: Effect.Effect<A, PublishFailed | OutcomeUnknown, R>) =>
  Effect.catchIf(
    takedown,
    (failure): failure is PublishFailed => failure._tag === "PublishFailed" && failure.error.category === "not_found",
    () => Effect.fail(new AlreadyGone({ detail }))
  )
