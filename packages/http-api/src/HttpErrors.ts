import { HttpApp, HttpServerResponse } from "@effect/platform"
import { HttpApiSchema } from "@effect/platform"
import {
  type DomainError,
  errorBody,
  type ErrorCodeOf,
  errorCodes,
  issueViolations,
  GuardrailViolation,
  refusedFieldsBody,
  StateConflictCode,
  Violation
} from "@herald/core"
import { Effect, Schema } from "effect"

/**
 * The error replies of the REST API. Every body is { error, code }: error is a sentence for a
 * person, code a stable machine-readable name (docs/api.md lists them). A domain error has a class
 * of its own (domainReplies); the classes below are the replies Herald's HTTP layer itself gives.
 */
/** Fields of a reply whose code is one of these (an enum in the document). */
const body = <const Codes extends ReadonlyArray<string>>(...codes: Codes) => ({ error: Schema.String, code: Schema.Literal(...codes) })

/** The 400 both APIs answer for a request that does not match its schema or cannot be read. */
export class BadRequest extends Schema.Class<BadRequest>("BadRequest")({
  ...body("invalid_request", "malformed_body", "body_too_deep"),
  /** Every invalid field at once: the body path (or query parameter), the account when one is at fault, why. */
  violations: Schema.optional(Schema.Array(Violation))
}, HttpApiSchema.annotations({ status: 400, description: "The request is invalid; violations names every invalid field." })) {}

export class InvalidCsv extends Schema.Class<InvalidCsv>("InvalidCsv")({
  ...body("invalid_csv"),
  violations: Schema.Array(Violation)
}, HttpApiSchema.annotations({ status: 400, description: "The bulk CSV cannot be read; violations names each line at fault." })) {}

export class MediaRefused extends Schema.Class<MediaRefused>("MediaRefused")(
  body("media_unfetchable", "media_unsupported", "ticket_expired"),
  HttpApiSchema.annotations({ status: 400, description: "The media cannot be taken: unfetchable, of an unsupported kind, or its ticket expired." })
) {}

export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  body("missing_api_key", "invalid_api_key", "revoked_api_key"),
  HttpApiSchema.annotations({ status: 401, description: "Missing, invalid or revoked API key." })
) {}

export class SessionEndedReply extends Schema.Class<SessionEndedReply>("SessionEndedReply")(
  body("session_ended"),
  HttpApiSchema.annotations({ status: 401, description: "The dashboard session is over (expired, signed out, or its credential revoked): sign in again." })
) {}

export class SessionRefused extends Schema.Class<SessionRefused>("SessionRefused")(
  body("csrf_token_invalid", "session_not_allowed"),
  HttpApiSchema.annotations({
    status: 403,
    description: "A dashboard session's change without its X-CSRF-Token header, or a session whose role does not use this API."
  })
) {}

export class NotFound extends Schema.Class<NotFound>("NotFound")(
  body("ticket_not_found", "ticket_empty", "ticket_claimed"),
  HttpApiSchema.annotations({ status: 404, description: "The upload ticket cannot be redeemed." })
) {}

export class OperatorProjectNotFound extends Schema.Class<OperatorProjectNotFound>("OperatorProjectNotFound")(
  body("project_not_found"),
  HttpApiSchema.annotations({ status: 404, description: "The Herald-Project header, sent with the admin token, names no project." })
) {}

export class Conflict extends Schema.Class<Conflict>("Conflict")(
  body("people_tags_unavailable"),
  HttpApiSchema.annotations({ status: 409, description: "The current state forbids this operation." })
) {}

export class PayloadTooLarge extends Schema.Class<PayloadTooLarge>("PayloadTooLarge")(
  body("body_too_large"),
  HttpApiSchema.annotations({ status: 413, description: "The request body is larger than this endpoint accepts." })
) {}

export class MediaTooLargeError extends Schema.Class<MediaTooLargeError>("MediaTooLargeError")(
  body("media_too_large"),
  HttpApiSchema.annotations({ status: 413, description: "The media file is larger than Herald accepts." })
) {}

export class UnsupportedMediaType extends Schema.Class<UnsupportedMediaType>("UnsupportedMediaType")(
  body("unsupported_media_type"),
  HttpApiSchema.annotations({ status: 415, description: "The Content-Type is not one this endpoint accepts." })
) {}

export class TooManyRequests extends Schema.Class<TooManyRequests>("TooManyRequests")({
  ...body("rate_limited"),
  retry_after: Schema.Int.annotations({ description: "Seconds to wait, as in the Retry-After header." })
}, HttpApiSchema.annotations({ status: 429, description: "Rate limit or the key's daily post cap reached; see Retry-After." })) {}

export class InternalError extends Schema.Class<InternalError>("InternalError")(
  body("internal_error"),
  HttpApiSchema.annotations({ status: 500, description: "Herald failed; nothing about the failure is disclosed." })
) {}

export const internalError = new InternalError({ error: "internal error", code: "internal_error" })

/**
 * The reply of each domain error: its own class, status and `code` (a literal, so the document
 * lists each response's codes as an enum and a typed client can tell them apart). This is the one
 * place a domain error's status is written; its code comes from core's errorCodes.
 */
const domain = <Code extends Schema.Schema.Any>(code: Code) => ({ error: Schema.String, code })
/** The reply class of a domain error that carries nothing beside { error, code }. */
const domainReply = <Self>() => <const Code extends string>(identifier: string, code: Code, status: number, description: string) =>
  Schema.Class<Self>(identifier)(domain(Schema.Literal(code)), HttpApiSchema.annotations({ status, description }))

export class ValidationFailedError extends Schema.Class<ValidationFailedError>("ValidationFailedError")({
  ...domain(Schema.Literal(errorCodes.ValidationFailed)),
  violations: Schema.Array(Violation)
}, HttpApiSchema.annotations({ status: 400, description: "The post is refused; violations names every field at fault." })) {}

export class UnknownOptionError extends Schema.Class<UnknownOptionError>("UnknownOptionError")({
  ...domain(Schema.Literal(errorCodes.UnknownOption)),
  violations: Schema.Array(Violation)
}, HttpApiSchema.annotations({ status: 400, description: "platform_configurations names a key its platform does not have; violations names each path and account (GET /posting-rules lists the keys each account accepts)." })) {}

export class IdempotencyKeyReusedError extends domainReply<IdempotencyKeyReusedError>()("IdempotencyKeyReusedError", errorCodes.IdempotencyKeyReused, 400, "The idempotency_key was already used with a different body.") {}

export class NotEditableError extends domainReply<NotEditableError>()("NotEditableError", errorCodes.NotEditable, 400, "The post has gone out or was already tried; retry a failed delivery instead.") {}

export class MissingScopeError extends domainReply<MissingScopeError>()("MissingScopeError", errorCodes.MissingScope, 403, "The key lacks the scope named in error.") {}

export class AgentCannotApproveError extends domainReply<AgentCannotApproveError>()("AgentCannotApproveError", errorCodes.AgentCannotApprove, 403, "Agent keys never approve or reject; a person decides with a human key.") {}

export class PlanInactiveError extends domainReply<PlanInactiveError>()("PlanInactiveError", errorCodes.PlanInactive, 403, "The project has no active plan.") {}

export class PostNotFoundError extends domainReply<PostNotFoundError>()("PostNotFoundError", errorCodes.PostNotFound, 404, "No post with this id in this key's project.") {}

export class PostSupersededError extends domainReply<PostSupersededError>()("PostSupersededError", errorCodes.PostSuperseded, 404, "An edit replaced this post; error names the successor's id.") {}

export class DeliveryNotFoundError extends domainReply<DeliveryNotFoundError>()("DeliveryNotFoundError", errorCodes.DeliveryNotFound, 404, "No delivery with this id in this key's project.") {}

export class MediaNotFoundError extends domainReply<MediaNotFoundError>()("MediaNotFoundError", errorCodes.MediaNotFound, 404, "No media with this id in this key's project.") {}

export class StateConflictError extends Schema.Class<StateConflictError>("StateConflictError")(
  domain(StateConflictCode),
  HttpApiSchema.annotations({ status: 409, description: "The current state forbids this operation." })
) {}

export class GuardrailBlockedError extends Schema.Class<GuardrailBlockedError>("GuardrailBlockedError")({
  ...domain(Schema.Literal(errorCodes.GuardrailBlocked)),
  violations: Schema.Array(GuardrailViolation)
}, HttpApiSchema.annotations({ status: 422, description: "Blocked by the project's guardrails; rewrite to comply." })) {}

export class DailyCapReachedError extends Schema.Class<DailyCapReachedError>("DailyCapReachedError")({
  ...domain(Schema.Literal(errorCodes.DailyCapReached)),
  retry_after: Schema.Int.annotations({ description: "Seconds until the cap resets, as in the Retry-After header." })
}, HttpApiSchema.annotations({ status: 429, description: "The key's daily post cap is reached; see Retry-After." })) {}

export class TakedownFailedError extends domainReply<TakedownFailedError>()("TakedownFailedError", errorCodes.TakedownFailed, 502, "The platform refused or failed to remove the post; the receipt stays as it was.") {}

/** Each domain error's reply class, by the error's tag. */
export const domainReplies = {
  ValidationFailed: ValidationFailedError,
  UnknownOption: UnknownOptionError,
  IdempotencyKeyReused: IdempotencyKeyReusedError,
  NotEditable: NotEditableError,
  MissingScope: MissingScopeError,
  AgentCannotApprove: AgentCannotApproveError,
  PlanInactive: PlanInactiveError,
  PostNotFound: PostNotFoundError,
  PostSuperseded: PostSupersededError,
  DeliveryNotFound: DeliveryNotFoundError,
  MediaNotFound: MediaNotFoundError,
  StateConflict: StateConflictError,
  GuardrailBlocked: GuardrailBlockedError,
  DailyCapReached: DailyCapReachedError,
  TakedownFailed: TakedownFailedError
} as const satisfies {
  // Each reply's code is exactly its error's (core's errorCodes): a mismatch does not compile.
  readonly [Tag in DomainError["_tag"]]: new(fields: never) => { readonly code: ErrorCodeOf<Extract<DomainError, { _tag: Tag }>> }
}

// The admin API's own replies: its codes appear in its document only.

export class AdminRefused extends Schema.Class<AdminRefused>("AdminRefused")({
  ...body(
    "webhook_url_refused",
    "route_not_supported",
    "platform_not_configured",
    "connection_method_mismatch",
    "connection_refused",
    "chat_url_refused",
    "email_not_configured"
  ),
  violations: Schema.Array(Violation)
}, HttpApiSchema.annotations({
  status: 400,
  description: "A webhook or chat URL that is not public https, an account route without a publisher, a platform whose OAuth client is " +
    "not configured, a direct account connected the wrong way, a login the platform refused, or an e-mail approval channel " +
    "on an instance without SMTP."
})) {}

export class AdminUnauthorized extends Schema.Class<AdminUnauthorized>("AdminUnauthorized")(
  body("missing_admin_token", "invalid_admin_token"),
  HttpApiSchema.annotations({ status: 401, description: "Missing or unknown admin token." })
) {}

export class AdminNotFound extends Schema.Class<AdminNotFound>("AdminNotFound")(
  body(
    "project_not_found",
    "api_key_not_found",
    "account_not_found",
    "webhook_endpoint_not_found",
    "webhook_send_not_found",
    "approval_channel_not_found"
  ),
  HttpApiSchema.annotations({ status: 404, description: "Not found; code says what." })
) {}

export class AdminConflict extends Schema.Class<AdminConflict>("AdminConflict")(
  body("webhook_send_not_given_up"),
  HttpApiSchema.annotations({ status: 409, description: "The webhook event is still being tried." })
) {}

/** Every error reply this package answers with. */
export const httpErrorClasses = [
  BadRequest,
  InvalidCsv,
  MediaRefused,
  Unauthorized,
  SessionEndedReply,
  SessionRefused,
  NotFound,
  OperatorProjectNotFound,
  Conflict,
  PayloadTooLarge,
  MediaTooLargeError,
  AdminRefused,
  AdminUnauthorized,
  AdminNotFound,
  AdminConflict,
  UnsupportedMediaType,
  TooManyRequests,
  InternalError,
  ...Object.values(domainReplies)
] as const
export type HttpError = InstanceType<typeof httpErrorClasses[number]>
export const isHttpError = (u: unknown): u is HttpError => httpErrorClasses.some((c) => u instanceof c)

/** Retry-After (seconds) on a 429, success and error replies alike. */
export const retryAfter = (seconds: number) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(seconds)))
  )

/** The reply of a domain error of type E, as a type: handlers declare exactly the replies they can answer. */
export type HttpErrorOf<E extends DomainError> = InstanceType<typeof domainReplies[E["_tag"]]>

/** A domain error as its reply (domainReplies): status and code by its kind, its body core's errorBody. */
export const failWith = <E extends DomainError>(error: E): Effect.Effect<never, HttpErrorOf<E>> =>
  Effect.flatMap(errorBody(error), (body) => {
    const Reply = domainReplies[error._tag] as unknown as new(fields: object) => HttpErrorOf<E>
    const fail = Effect.fail(new Reply(body))
    return body.retry_after === undefined ? fail : Effect.zipRight(retryAfter(body.retry_after), fail)
  })

/** A 400 naming each field at fault (core's refusedFieldsBody); `invalid_request` unless told. */
export const refusedFields = (violations: ReadonlyArray<Violation>, code: BadRequest["code"] = "invalid_request"): BadRequest =>
  new BadRequest({ ...refusedFieldsBody(violations), code })

/** A 400 for a body that cannot be read as its type: bytes that are not UTF-8, JSON or a multipart form. */
export const malformedBody = (error: string) => new BadRequest({ error, code: "malformed_body" })

/** A 400 naming every invalid field of a request that did not match its schema. */
export const invalidRequest = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>,
  code: BadRequest["code"] = "invalid_request"
): BadRequest => refusedFields(issueViolations(issues), code)

/**
 * The reply of an error. Written here rather than by HttpApi's error encoder because these
 * classes share their fields ({ error, code }) and the encoder, matching by shape, would answer
 * every one of them with the first class's status.
 */
export const errorResponse = (error: HttpError): HttpServerResponse.HttpServerResponse => {
  const schema = error.constructor as unknown as Schema.Schema<HttpError, unknown>
  return HttpServerResponse.unsafeJson(Schema.encodeSync(schema)(error), { status: HttpApiSchema.getStatusErrorAST(schema.ast) })
}
