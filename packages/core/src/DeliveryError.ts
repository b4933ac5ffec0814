import { Schema } from "effect"

/**
 * Why a delivery failed, or why its outcome is in doubt, in terms a person or a client can act on.
 * Every publisher maps its platform's answers into these (docs/publishing.md has the table).
 * - auth_expired: the platform refused the account's token (expired or revoked), or the account is
 *   no longer connected; reconnect it
 * - permission_missing: the connection lacks something the call needs: a permission (scope) not
 *   granted, an account the platform restricts from posting, a route this build cannot serve
 * - rate_limited: the platform asked Herald to slow down
 * - content_rejected: the platform (or the project's guardrails) refused the words or the options
 * - media_rejected: the platform refused the media, or the media no longer exists
 * - not_found: the platform does not know the post or the account the call named
 * - transient: a passing failure of the platform or the network (5xx, a refused connection)
 * - outcome_unknown: the call got no answer, or Herald could not confirm what it did
 */
export const DeliveryErrorCategory = Schema.Literal(
  "auth_expired",
  "permission_missing",
  "rate_limited",
  "content_rejected",
  "media_rejected",
  "not_found",
  "transient",
  "outcome_unknown"
)
export type DeliveryErrorCategory = typeof DeliveryErrorCategory.Type

export const DeliveryError = Schema.Struct({
  category: DeliveryErrorCategory,
  code: Schema.String,
  message: Schema.String
})
export type DeliveryError = typeof DeliveryError.Type

/**
 * The `category` inside a receipt's and a webhook's `error`: a coarser grouping of
 * DeliveryErrorCategory, kept as clients have always read it. The receipt's `error_category`
 * beside it carries the category itself.
 */
export const FailureCategory = Schema.Literal(
  "auth_expired",
  "content_rejected",
  "media_invalid",
  "rate_limited",
  "platform_error",
  "unknown"
)
export type FailureCategory = typeof FailureCategory.Type

const failureCategories: { readonly [C in DeliveryErrorCategory]: FailureCategory } = {
  auth_expired: "auth_expired",
  permission_missing: "platform_error",
  rate_limited: "rate_limited",
  content_rejected: "content_rejected",
  media_rejected: "media_invalid",
  not_found: "platform_error",
  transient: "platform_error",
  outcome_unknown: "unknown"
}

/** A delivery error as receipts and webhooks show it. */
export const WireDeliveryError = Schema.Struct({
  category: FailureCategory,
  code: Schema.String,
  message: Schema.String
})
export type WireDeliveryError = typeof WireDeliveryError.Type

export const toWireError = (error: DeliveryError): WireDeliveryError => ({
  category: failureCategories[error.category],
  code: error.code,
  message: error.message
})
