/**
 * LinkedIn's answers in Herald's error taxonomy (docs/networks/linkedin.md has the table).
 * LinkedIn's status decides, with its code where the status alone is ambiguous (a duplicate post,
 * an API version it no longer serves).
 */
import { type DeliveryError, OutcomeUnknown, PlatformCallFailed, PublishFailed } from "@herald/core"
import { linkedinVersion, type LinkedinFailure, type LinkedinRefused } from "./Rest.js"

/** What the refused call was doing: a refusal of a media upload is the media's. */
export type Stage = "post" | "media" | "read"

const categoryOf = (refused: LinkedinRefused, stage: Stage): DeliveryError["category"] => {
  if (refused.status === 429) return "rate_limited"
  if (refused.status === 401) return "auth_expired"
  if (refused.status === 403) return "permission_missing"
  // The API version Herald pins is no longer served: nothing an account owner can fix.
  if (refused.status === 426) return "permission_missing"
  if (refused.status >= 500) return "transient"
  if (refused.status === 404) return stage === "media" ? "media_rejected" : "not_found"
  if (isDuplicate(refused)) return "content_rejected"
  if (stage === "media" || refused.status === 413) return "media_rejected"
  return "content_rejected"
}

export const isDuplicate = (refused: LinkedinRefused) =>
  refused.code === "DUPLICATE_POST" || /content is a duplicate/i.test(refused.message)

const hint = (refused: LinkedinRefused): string | null => {
  if (refused.status === 401) return "LinkedIn refused the token even after a refresh; reconnect the account"
  if (refused.status === 403) return "the connection lacks a LinkedIn permission (scope) or page role this call needs; reconnect with it granted"
  if (refused.status === 426) return `LinkedIn no longer serves API version ${linkedinVersion}; this Herald build needs updating`
  return null
}

/** The refusal as a DeliveryError: LinkedIn's code, its message kept. */
export const deliveryError = (refused: LinkedinRefused, stage: Stage): DeliveryError => {
  const advice = hint(refused)
  return {
    category: categoryOf(refused, stage),
    code: refused.code,
    message: advice === null ? `${refused.message} (HTTP ${refused.status})` : `${refused.message} (HTTP ${refused.status}; ${advice})`
  }
}

/** Whether a refreshed token might pass: LinkedIn refused the token itself. */
export const isTokenRefusal = (failure: unknown): failure is LinkedinRefused =>
  typeof failure === "object" && failure !== null && "_tag" in failure && failure._tag === "LinkedinRefused" &&
  (failure as LinkedinRefused).status === 401

const retriable = (error: DeliveryError) => error.category === "transient" || error.category === "rate_limited"

/** A failure before the post's creation (an upload, a refused create): nothing was published. */
export const publishFailed = (failure: LinkedinFailure, stage: Stage): PublishFailed => {
  if (failure._tag === "LinkedinNoAnswer") {
    return new PublishFailed({ error: { category: "transient", code: "no_answer", message: failure.detail }, transient: true, retryAfterMs: null })
  }
  const error = deliveryError(failure, stage)
  return new PublishFailed({ error, transient: retriable(error), retryAfterMs: failure.retryAfterMs })
}

/**
 * A failure of the call that creates the post or deletes it: without an answer the post may
 * exist (or be gone) all the same. A gateway timeout is no answer from LinkedIn itself.
 */
export const createFailed = (failure: LinkedinFailure): PublishFailed | OutcomeUnknown =>
  failure._tag === "LinkedinNoAnswer"
    ? new OutcomeUnknown({ detail: `LinkedIn gave no usable answer to the post: ${failure.detail}` })
    : failure.status === 504
    ? new OutcomeUnknown({ detail: `LinkedIn's gateway timed out on the post (HTTP 504): ${failure.message}` })
    : publishFailed(failure, "post")

/** A failed read (metrics, probe, identity): without an answer, a passing failure. */
export const readFailed = (failure: LinkedinFailure): PlatformCallFailed =>
  failure._tag === "LinkedinNoAnswer"
    ? new PlatformCallFailed({ error: { category: "transient", code: "no_answer", message: failure.detail }, retryAfterMs: null })
    : new PlatformCallFailed({ error: deliveryError(failure, "read"), retryAfterMs: failure.retryAfterMs })

/** The token could not be had (refresh refused, account disconnected): the publish stops here. */
export const tokenLost = (failed: PlatformCallFailed): PublishFailed =>
  new PublishFailed({ error: failed.error, transient: retriable(failed.error), retryAfterMs: failed.retryAfterMs })
