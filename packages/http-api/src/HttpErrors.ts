import { HttpApp, HttpServerResponse } from "@effect/platform"
import { HttpApiSchema } from "@effect/platform"
import {
  type AgentCannotApprove,
  type DailyCapReached,
  type DeliveryNotFound,
  describeViolation,
  type DomainError,
  errorCode,
  excerpt,
  fieldPath,
  type GuardrailBlocked,
  GuardrailViolation,
  type IdempotencyKeyReused,
  type MissingScope,
  type NotEditable,
  type PlanInactive,
  type PostNotFound,
  type PostSuperseded,
  type StateConflict,
  type TakedownFailed,
  type ValidationFailed,
  Violation
} from "@herald/core"
import { DateTime, Effect, Schema } from "effect"

/**
 * The error replies of the REST API. Every body is { error, code }: error is a sentence for a
 * person, code a stable machine-readable name (docs/api.md lists them). One class per status, so
 * the OpenAPI document and the typed client know each endpoint's failures.
 */
const body = { error: Schema.String, code: Schema.String }

export class BadRequest extends Schema.Class<BadRequest>("BadRequest")({
  ...body,
  /** Every invalid field at once: the body path (or query parameter), the account when one is at fault, why. */
  violations: Schema.optional(Schema.Array(Violation))
}, HttpApiSchema.annotations({ status: 400, description: "The request is invalid; violations names every invalid field." })) {}

export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  body,
  HttpApiSchema.annotations({ status: 401, description: "Missing, invalid or revoked API key." })
) {}

export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  body,
  HttpApiSchema.annotations({
    status: 403,
    description: "The key may not do this: a missing scope (named in error), an agent key on approve, or no active plan."
  })
) {}

export class NotFound extends Schema.Class<NotFound>("NotFound")(
  body,
  HttpApiSchema.annotations({ status: 404, description: "Not found in this key's project." })
) {}

export class Conflict extends Schema.Class<Conflict>("Conflict")(
  body,
  HttpApiSchema.annotations({ status: 409, description: "The current state forbids this operation." })
) {}

export class PayloadTooLarge extends Schema.Class<PayloadTooLarge>("PayloadTooLarge")(
  body,
  HttpApiSchema.annotations({ status: 413, description: "The request body is larger than this endpoint accepts." })
) {}

export class UnsupportedMediaType extends Schema.Class<UnsupportedMediaType>("UnsupportedMediaType")(
  body,
  HttpApiSchema.annotations({ status: 415, description: "The Content-Type is not one this endpoint accepts." })
) {}

export class GuardrailRefusal extends Schema.Class<GuardrailRefusal>("GuardrailRefusal")({
  ...body,
  violations: Schema.Array(GuardrailViolation)
}, HttpApiSchema.annotations({ status: 422, description: "Blocked by the project's guardrails; rewrite to comply." })) {}

export class TooManyRequests extends Schema.Class<TooManyRequests>("TooManyRequests")({
  ...body,
  retry_after: Schema.Int.annotations({ description: "Seconds to wait, as in the Retry-After header." })
}, HttpApiSchema.annotations({ status: 429, description: "Rate limit or the key's daily post cap reached; see Retry-After." })) {}

export class BadGateway extends Schema.Class<BadGateway>("BadGateway")(
  body,
  HttpApiSchema.annotations({ status: 502, description: "The platform refused or failed the operation." })
) {}

export class InternalError extends Schema.Class<InternalError>("InternalError")(
  body,
  HttpApiSchema.annotations({ status: 500, description: "Herald failed; nothing about the failure is disclosed." })
) {}

export const internalError = new InternalError({ error: "internal error", code: "internal_error" })

/** Every error reply this package answers with. */
export const httpErrorClasses = [
  BadRequest,
  Unauthorized,
  Forbidden,
  NotFound,
  Conflict,
  PayloadTooLarge,
  UnsupportedMediaType,
  GuardrailRefusal,
  TooManyRequests,
  BadGateway,
  InternalError
] as const
export type HttpError = InstanceType<typeof httpErrorClasses[number]>
export const isHttpError = (u: unknown): u is HttpError => httpErrorClasses.some((c) => u instanceof c)

/** The reply each domain error gets, as a type: handlers declare exactly the statuses they can answer. */
export type HttpErrorOf<E> = E extends ValidationFailed | IdempotencyKeyReused | NotEditable ? BadRequest
  : E extends MissingScope | AgentCannotApprove | PlanInactive ? Forbidden
  : E extends PostNotFound | PostSuperseded | DeliveryNotFound ? NotFound
  : E extends StateConflict ? Conflict
  : E extends GuardrailBlocked ? GuardrailRefusal
  : E extends DailyCapReached ? TooManyRequests
  : E extends TakedownFailed ? BadGateway
  : never

/** Retry-After (seconds) on a 429, success and error replies alike. */
export const retryAfter = (seconds: number) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(seconds)))
  )

const secondsUntil = (instant: DateTime.Utc) =>
  Effect.map(DateTime.now, (now) => Math.max(Math.ceil(DateTime.distance(now, instant) / 1000), 1))

/**
 * The one mapping from a domain error to its HTTP reply: status by error kind, code from the
 * core's errorCode, the error's own message, violations where the kind has them.
 */
export const failWith = <E extends DomainError>(error: E): Effect.Effect<never, HttpErrorOf<E>> => {
  const fields = { error: error.message, code: errorCode(error) }
  const reply = (): Effect.Effect<HttpError> => {
    switch (error._tag) {
      case "ValidationFailed":
        return Effect.succeed(new BadRequest({ ...fields, violations: error.violations }))
      case "IdempotencyKeyReused":
      case "NotEditable":
        return Effect.succeed(new BadRequest(fields))
      case "MissingScope":
      case "AgentCannotApprove":
      case "PlanInactive":
        return Effect.succeed(new Forbidden(fields))
      case "PostNotFound":
      case "PostSuperseded":
      case "DeliveryNotFound":
        return Effect.succeed(new NotFound(fields))
      case "StateConflict":
        return Effect.succeed(new Conflict(fields))
      case "GuardrailBlocked":
        return Effect.succeed(new GuardrailRefusal({ ...fields, violations: error.violations }))
      case "DailyCapReached":
        return secondsUntil(error.resetAt).pipe(
          Effect.tap(retryAfter),
          Effect.map((seconds) => new TooManyRequests({ ...fields, retry_after: seconds }))
        )
      case "TakedownFailed":
        return Effect.succeed(new BadGateway(fields))
    }
  }
  return Effect.flatMap(reply(), Effect.fail) as Effect.Effect<never, HttpErrorOf<E>>
}

/** Characters of a value a schema message may repeat (longer ones are described, not echoed). */
const maxActual = 80
/** Characters of the `error` sentence of a 400 (violations keeps every one). */
const maxSentence = 1000

/**
 * A schema message that never repeats a long value: Effect writes `Expected <what>, actual <value>`
 * with the whole value in it, so a long one becomes its length (a string) or its start.
 */
const capMessage = (message: string): string => {
  const split = message.indexOf(", actual ")
  if (split < 0) return excerpt(message, maxSentence)
  const actual = message.slice(split + ", actual ".length)
  if (actual.length <= maxActual) return excerpt(message, maxSentence)
  const text = actual.startsWith("\"") ? stringLength(actual) : null
  const described = text === null ? excerpt(actual, maxActual) : `a string of ${text} characters`
  return excerpt(`${message.slice(0, split)}, actual ${described}`, maxSentence)
}

const stringLength = (quoted: string): number | null => {
  try {
    const text: unknown = JSON.parse(quoted)
    return typeof text === "string" ? text.length : null
  } catch {
    return null
  }
}

/** The error sentence of a 400 listing its violations, as many as fit. */
const sentence = (violations: ReadonlyArray<Violation>): string => {
  let text = "invalid request: "
  for (const [index, violation] of violations.entries()) {
    const part = `${index === 0 ? "" : "; "}${describeViolation(violation)}`
    if (text.length + part.length > maxSentence) return `${text}; and ${violations.length - index} more (see violations)`
    text += part
  }
  return text
}

/** A 400 naming each field at fault (messages capped); `invalid_request` unless told. */
export const refusedFields = (violations: ReadonlyArray<Violation>, code = "invalid_request"): BadRequest => {
  const capped = violations.map((violation) => ({ ...violation, message: capMessage(violation.message) }))
  return new BadRequest({ error: sentence(capped), code, violations: capped })
}

/** A 400 naming every invalid field of a request that did not match its schema. */
export const invalidRequest = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>,
  code = "invalid_request"
): BadRequest => {
  const all = issues.map((issue) => ({ field: fieldPath(issue.path), account: null, message: issue.message }))
  // An optional field that fails reports its undefined alternative too; that one says nothing.
  return refusedFields(
    all.filter((v) => !(v.message.startsWith("Expected undefined,") && all.some((other) => other !== v && other.field === v.field))),
    code
  )
}

/**
 * The reply of an error. Written here rather than by HttpApi's error encoder because these
 * classes share their fields ({ error, code }) and the encoder, matching by shape, would answer
 * every one of them with the first class's status.
 */
export const errorResponse = (error: HttpError): HttpServerResponse.HttpServerResponse => {
  const schema = error.constructor as unknown as Schema.Schema<HttpError, unknown>
  return HttpServerResponse.unsafeJson(Schema.encodeSync(schema)(error), { status: HttpApiSchema.getStatusErrorAST(schema.ast) })
}
