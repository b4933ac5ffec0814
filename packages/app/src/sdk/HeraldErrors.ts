import type { GuardrailViolation, Violation } from "@herald/core"

/** What an error reply carries beside its sentence and code (docs/api.md, Errors). */
export interface HeraldErrorDetails {
  /** Every field at fault (a 400), or the guardrail rules that refused the text (a 422). */
  readonly violations?: ReadonlyArray<Violation | GuardrailViolation>
  /** Seconds to wait (a 429), as in the Retry-After header. */
  readonly retry_after?: number
}

/**
 * Every failure of an SDK call, in process or remote: `code` is the reply's stable code
 * (docs/api.md lists them), `status` its HTTP status, `details` what the reply carried beside
 * them. Each code has its own subclass (`instanceof PostNotFound`), and `_tag` names it, so
 * Effect users can `Effect.catchTag("PostNotFound", ...)`.
 */
export class HeraldError extends Error {
  readonly _tag: string
  readonly code: string
  readonly status: number
  readonly details: HeraldErrorDetails

  constructor(tag: string, code: string, status: number, message: string, details: HeraldErrorDetails = {}, options?: ErrorOptions) {
    super(message, options)
    this._tag = tag
    this.code = code
    this.status = status
    this.details = details
    this.name = tag
  }
}

/** The subclass of one code: its tag, code and status are literals, so a union of them narrows on any of the three. */
const errorOfCode = <const Tag extends string, const Code extends string, const Status extends number>(tag: Tag, code: Code, status: Status) =>
  class extends HeraldError {
    static readonly code: Code = code
    static readonly status: Status = status
    declare readonly _tag: Tag
    declare readonly code: Code
    declare readonly status: Status
    constructor(message: string, details?: HeraldErrorDetails, options?: ErrorOptions) {
      super(tag, code, status, message, details, options)
    }
  }

// Keys (401)
export class MissingApiKey extends errorOfCode("MissingApiKey", "missing_api_key", 401) {}
export class InvalidApiKey extends errorOfCode("InvalidApiKey", "invalid_api_key", 401) {}
export class RevokedApiKey extends errorOfCode("RevokedApiKey", "revoked_api_key", 401) {}
export class MissingAdminToken extends errorOfCode("MissingAdminToken", "missing_admin_token", 401) {}
export class InvalidAdminToken extends errorOfCode("InvalidAdminToken", "invalid_admin_token", 401) {}
export class SessionEnded extends errorOfCode("SessionEnded", "session_ended", 401) {}
export class CsrfTokenInvalid extends errorOfCode("CsrfTokenInvalid", "csrf_token_invalid", 403) {}
export class SessionNotAllowed extends errorOfCode("SessionNotAllowed", "session_not_allowed", 403) {}

// The request itself (400, 408, 413, 414, 415, 431)
export class InvalidRequest extends errorOfCode("InvalidRequest", "invalid_request", 400) {}
export class MalformedBody extends errorOfCode("MalformedBody", "malformed_body", 400) {}
export class BodyTooDeep extends errorOfCode("BodyTooDeep", "body_too_deep", 400) {}
export class MalformedRequest extends errorOfCode("MalformedRequest", "malformed_request", 400) {}
export class InvalidRequestId extends errorOfCode("InvalidRequestId", "invalid_request_id", 400) {}
export class InvalidCsv extends errorOfCode("InvalidCsv", "invalid_csv", 400) {}
export class RequestTimeout extends errorOfCode("RequestTimeout", "request_timeout", 408) {}
export class BodyTooLarge extends errorOfCode("BodyTooLarge", "body_too_large", 413) {}
export class UriTooLong extends errorOfCode("UriTooLong", "uri_too_long", 414) {}
export class UnsupportedMediaType extends errorOfCode("UnsupportedMediaType", "unsupported_media_type", 415) {}
export class RequestHeaderTooLarge extends errorOfCode("RequestHeaderTooLarge", "request_header_too_large", 431) {}
export class NotFound extends errorOfCode("NotFound", "not_found", 404) {}

// Posts and deliveries
export class ValidationFailed extends errorOfCode("ValidationFailed", "validation_failed", 400) {}
export class UnknownOption extends errorOfCode("UnknownOption", "unknown_option", 400) {}
export class IdempotencyKeyReused extends errorOfCode("IdempotencyKeyReused", "idempotency_key_reused", 400) {}
export class PostNotEditable extends errorOfCode("PostNotEditable", "post_not_editable", 400) {}
export class MissingScope extends errorOfCode("MissingScope", "missing_scope", 403) {}
export class AgentCannotApprove extends errorOfCode("AgentCannotApprove", "agent_cannot_approve", 403) {}
export class NoActivePlan extends errorOfCode("NoActivePlan", "no_active_plan", 403) {}
export class PostNotFound extends errorOfCode("PostNotFound", "post_not_found", 404) {}
export class DeliveryNotFound extends errorOfCode("DeliveryNotFound", "delivery_not_found", 404) {}
export class MediaNotFound extends errorOfCode("MediaNotFound", "media_not_found", 404) {}
export class RangeNotSatisfiable extends errorOfCode("RangeNotSatisfiable", "range_not_satisfiable", 416) {}
export class PostSuperseded extends errorOfCode("PostSuperseded", "post_superseded", 404) {}
export class ApprovalLinkOutdated extends errorOfCode("ApprovalLinkOutdated", "approval_link_outdated", 409) {}
export class PostNotPendingApproval extends errorOfCode("PostNotPendingApproval", "post_not_pending_approval", 409) {}
export class PostNotDeletable extends errorOfCode("PostNotDeletable", "post_not_deletable", 409) {}
export class PostApproved extends errorOfCode("PostApproved", "post_approved", 409) {}
export class DeliveryNotFailed extends errorOfCode("DeliveryNotFailed", "delivery_not_failed", 409) {}
export class DeliveryNeverWentOut extends errorOfCode("DeliveryNeverWentOut", "delivery_never_went_out", 409) {}
export class DeliveryTakenDown extends errorOfCode("DeliveryTakenDown", "delivery_taken_down", 409) {}
export class TakedownUnsupported extends errorOfCode("TakedownUnsupported", "takedown_unsupported", 409) {}
export class ConcurrentUpdate extends errorOfCode("ConcurrentUpdate", "concurrent_update", 409) {}
export class GuardrailBlocked extends errorOfCode("GuardrailBlocked", "guardrail_blocked", 422) {}
export class RateLimited extends errorOfCode("RateLimited", "rate_limited", 429) {}
export class DailyCapReached extends errorOfCode("DailyCapReached", "daily_cap_reached", 429) {}
export class TakedownFailed extends errorOfCode("TakedownFailed", "takedown_failed", 502) {}

// Media
export class MediaUnsupported extends errorOfCode("MediaUnsupported", "media_unsupported", 400) {}
export class MediaUnfetchable extends errorOfCode("MediaUnfetchable", "media_unfetchable", 400) {}
export class TicketExpired extends errorOfCode("TicketExpired", "ticket_expired", 400) {}
export class PeopleTagsNeedImage extends errorOfCode("PeopleTagsNeedImage", "people_tags_need_image", 400) {}
export class TicketNotFound extends errorOfCode("TicketNotFound", "ticket_not_found", 404) {}
export class TicketEmpty extends errorOfCode("TicketEmpty", "ticket_empty", 404) {}
export class TicketClaimed extends errorOfCode("TicketClaimed", "ticket_claimed", 404) {}
export class PeopleTagsUnavailable extends errorOfCode("PeopleTagsUnavailable", "people_tags_unavailable", 409) {}
export class MediaTooLarge extends errorOfCode("MediaTooLarge", "media_too_large", 413) {}
export class PeopleTagsUnconfirmed extends errorOfCode("PeopleTagsUnconfirmed", "people_tags_unconfirmed", 422) {}
export class MediaStorageUnavailable extends errorOfCode("MediaStorageUnavailable", "media_storage_unavailable", 503) {}

// The admin API
export class WebhookUrlRefused extends errorOfCode("WebhookUrlRefused", "webhook_url_refused", 400) {}
export class RouteNotSupported extends errorOfCode("RouteNotSupported", "route_not_supported", 400) {}
export class PlatformNotConfigured extends errorOfCode("PlatformNotConfigured", "platform_not_configured", 400) {}
export class ConnectionMethodMismatch extends errorOfCode("ConnectionMethodMismatch", "connection_method_mismatch", 400) {}
export class ConnectionRefused extends errorOfCode("ConnectionRefused", "connection_refused", 400) {}
export class ProjectNotFound extends errorOfCode("ProjectNotFound", "project_not_found", 404) {}
export class ApiKeyNotFound extends errorOfCode("ApiKeyNotFound", "api_key_not_found", 404) {}
export class AccountNotFound extends errorOfCode("AccountNotFound", "account_not_found", 404) {}
export class WebhookEndpointNotFound extends errorOfCode("WebhookEndpointNotFound", "webhook_endpoint_not_found", 404) {}
export class WebhookSendNotFound extends errorOfCode("WebhookSendNotFound", "webhook_send_not_found", 404) {}
export class WebhookSendNotGivenUp extends errorOfCode("WebhookSendNotGivenUp", "webhook_send_not_given_up", 409) {}
export class ChatUrlRefused extends errorOfCode("ChatUrlRefused", "chat_url_refused", 400) {}
export class EmailNotConfigured extends errorOfCode("EmailNotConfigured", "email_not_configured", 400) {}
export class ApprovalChannelNotFound extends errorOfCode("ApprovalChannelNotFound", "approval_channel_not_found", 404) {}

// Herald itself
export class InternalError extends errorOfCode("InternalError", "internal_error", 500) {}
export class ShuttingDown extends errorOfCode("ShuttingDown", "shutting_down", 503) {}

// The SDK's own: no reply to tell (status 0).
/** A remote Herald could not be reached, or the connection broke before its reply. */
export class HeraldUnreachable extends errorOfCode("HeraldUnreachable", "herald_unreachable", 0) {}
/** A reply this SDK cannot read: a status or body its API description does not give (a Herald of another version). */
export class UnexpectedReply extends errorOfCode("UnexpectedReply", "unexpected_reply", 0) {}

/** Every error class; a code's class is found through heraldErrorClasses. */
const allErrorClasses = [
  MissingApiKey, InvalidApiKey, RevokedApiKey, MissingAdminToken, InvalidAdminToken, SessionEnded, CsrfTokenInvalid, SessionNotAllowed,
  InvalidRequest, MalformedBody, BodyTooDeep, MalformedRequest, InvalidRequestId, InvalidCsv, RequestTimeout, BodyTooLarge, UriTooLong,
  UnsupportedMediaType, RequestHeaderTooLarge, NotFound,
  ValidationFailed, UnknownOption, IdempotencyKeyReused, PostNotEditable, MissingScope, AgentCannotApprove, NoActivePlan,
  PostNotFound, DeliveryNotFound, MediaNotFound, RangeNotSatisfiable, PostSuperseded, ApprovalLinkOutdated, PostNotPendingApproval, PostNotDeletable, PostApproved,
  DeliveryNotFailed, DeliveryNeverWentOut, DeliveryTakenDown, TakedownUnsupported, ConcurrentUpdate, GuardrailBlocked,
  RateLimited, DailyCapReached, TakedownFailed,
  MediaUnsupported, MediaUnfetchable, TicketExpired, PeopleTagsNeedImage, TicketNotFound, TicketEmpty, TicketClaimed,
  PeopleTagsUnavailable, MediaTooLarge, PeopleTagsUnconfirmed, MediaStorageUnavailable,
  WebhookUrlRefused, RouteNotSupported, PlatformNotConfigured, ConnectionMethodMismatch, ConnectionRefused, ProjectNotFound,
  ApiKeyNotFound, AccountNotFound, WebhookEndpointNotFound, WebhookSendNotFound, WebhookSendNotGivenUp,
  ChatUrlRefused, EmailNotConfigured, ApprovalChannelNotFound,
  InternalError, ShuttingDown, HeraldUnreachable, UnexpectedReply
] as const

export type HeraldErrorClass = typeof allErrorClasses[number]
/** Every code this SDK knows, as a type. */
export type KnownCode = HeraldErrorClass["code"]
/** The error of a code, as a type: what a reply of that code rejects with. */
export type HeraldErrorOfCode<Code> = InstanceType<Extract<HeraldErrorClass, { readonly code: Code }>>

/** Each error class by its code: the one place a reply's code finds its class. */
export const heraldErrorClasses = Object.fromEntries(allErrorClasses.map((Class) => [Class.code, Class])) as {
  readonly [Code in KnownCode]: Extract<HeraldErrorClass, { readonly code: Code }>
}

/** The error of a reply body; a code this SDK does not know (a newer Herald) is an UnexpectedReply that keeps it in its message. */
export const heraldErrorOf = (
  body: { readonly error?: unknown; readonly code?: unknown; readonly violations?: unknown; readonly retry_after?: unknown },
  cause?: unknown
): HeraldError => {
  const message = typeof body.error === "string" ? body.error : "Herald answered with an error"
  const details: HeraldErrorDetails = {
    ...(Array.isArray(body.violations) ? { violations: body.violations as HeraldErrorDetails["violations"] } : {}),
    ...(typeof body.retry_after === "number" ? { retry_after: body.retry_after } : {})
  }
  const Class = typeof body.code === "string" ? (heraldErrorClasses as Record<string, HeraldErrorClass | undefined>)[body.code] : undefined
  return Class === undefined
    ? new UnexpectedReply(`${message} (code ${String(body.code)})`, details, { cause })
    : new Class(message, details, { cause })
}
