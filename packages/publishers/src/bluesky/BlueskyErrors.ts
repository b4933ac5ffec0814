/**
 * Bluesky's answers in Herald's error taxonomy (docs/networks/bluesky.md has the table). The
 * PDS's own error names come first; the status decides for names it does not list.
 */
import { type DeliveryError, PlatformCallFailed, PublishFailed } from "@herald/core"
import { type XrpcFailure, XrpcRefused } from "./Xrpc.js"

const authNames = new Set([
  "ExpiredToken",
  "InvalidToken",
  "AuthenticationRequired",
  "AuthMissing",
  "AuthFactorTokenRequired",
  "AccountTakedown",
  "AccountDeactivated",
  "AccountNotFound"
])
const mediaNames = new Set(["BlobTooLarge", "PayloadTooLarge", "InvalidMimeType", "BlobNotFound"])
const missingNames = new Set(["RecordNotFound", "RepoNotFound", "NotFound"])

const categoryOf = (refused: XrpcRefused): DeliveryError["category"] => {
  if (refused.status === 429 || refused.error === "RateLimitExceeded") return "rate_limited"
  if (authNames.has(refused.error) || refused.status === 401) return "auth_expired"
  if (mediaNames.has(refused.error) || refused.status === 413) return "media_rejected"
  if (missingNames.has(refused.error) || refused.status === 404) return "not_found"
  if (refused.status === 403) return "permission_missing"
  if (refused.status >= 500) return "transient"
  return "content_rejected"
}

const hints: Partial<Record<string, string>> = {
  AuthFactorTokenRequired: "the account asks for an email code at login; connect it with an app password instead",
  ExpiredToken: "the session expired and could not be renewed; reconnect the account"
}

/** The refusal as a DeliveryError: Bluesky's error name as the code, its message kept. */
export const deliveryError = (refused: XrpcRefused): DeliveryError => ({
  category: categoryOf(refused),
  code: refused.error,
  message: hints[refused.error] === undefined ? refused.message : `${refused.message} (${hints[refused.error]})`
})

/** Whether a renewed session might pass: the PDS refused the access token itself. */
export const isSessionRefusal = (failure: unknown): failure is XrpcRefused =>
  failure instanceof XrpcRefused &&
  (failure.error === "ExpiredToken" || failure.error === "InvalidToken" ||
    (failure.status === 401 && failure.error !== "AuthFactorTokenRequired"))

const retriable = (error: DeliveryError) => error.category === "transient" || error.category === "rate_limited"

/** A failure before or beside the post's creation: nothing was published. */
export const publishFailed = (failure: XrpcFailure): PublishFailed => {
  if (failure._tag === "XrpcNoAnswer") {
    return new PublishFailed({ error: { category: "transient", code: "no_answer", message: failure.detail }, transient: true, retryAfterMs: null })
  }
  const error = deliveryError(failure)
  return new PublishFailed({ error, transient: retriable(error), retryAfterMs: failure.retryAfterMs })
}

/** A failed read (metrics, probe, login): without an answer, a passing failure. */
export const readFailed = (failure: XrpcFailure): PlatformCallFailed =>
  failure._tag === "XrpcNoAnswer"
    ? new PlatformCallFailed({ error: { category: "transient", code: "no_answer", message: failure.detail }, retryAfterMs: null })
    : new PlatformCallFailed({ error: deliveryError(failure), retryAfterMs: failure.retryAfterMs })

/** The session could not be had (refresh refused, account disconnected): the publish stops here. */
export const sessionLost = (failed: PlatformCallFailed): PublishFailed =>
  new PublishFailed({ error: failed.error, transient: retriable(failed.error), retryAfterMs: failed.retryAfterMs })
