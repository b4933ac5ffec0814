/**
 * TikTok's refusals read onto Herald's taxonomy: the error envelope every open.tiktokapis.com
 * call answers (`{ data, error: { code, message, log_id } }`, any code but "ok" a failure, some
 * with HTTP 200), and the fail_reason of a publish that FAILED (Content Posting API, "Get Post
 * Status"). docs/networks/tiktok.md has the table.
 */
import type { DeliveryError, DeliveryErrorCategory } from "@herald/core"
import { Option, Schema } from "effect"
import { categoryOfStatus } from "../kit/index.js"

export const network = "TikTok"

export const TiktokError = Schema.Struct({
  code: Schema.String,
  message: Schema.optional(Schema.String),
  log_id: Schema.optional(Schema.String)
})
export type TiktokError = typeof TiktokError.Type

const readEnvelope = Schema.decodeUnknownOption(Schema.Struct({ error: TiktokError }))

const codes: Readonly<Record<string, DeliveryErrorCategory>> = {
  access_token_invalid: "auth_expired",
  scope_not_authorized: "permission_missing",
  scope_permission_missed: "permission_missing",
  rate_limit_exceeded: "rate_limited",
  // The creator's posts of a rolling 24 hours, pending inbox shares, and the app's daily posting users.
  spam_risk_too_many_posts: "rate_limited",
  spam_risk_too_many_pending_share: "rate_limited",
  reached_active_user_cap: "rate_limited",
  spam_risk_user_banned_from_posting: "permission_missing",
  // An unaudited app posts only to private accounts: the account's setting, not the post, is at fault.
  unaudited_client_can_only_post_to_private_accounts: "permission_missing",
  privacy_level_option_mismatch: "content_rejected",
  invalid_param: "content_rejected",
  invalid_params: "content_rejected",
  app_version_check_failed: "content_rejected",
  // The media host's domain or URL prefix is not verified with TikTok (PULL_FROM_URL).
  url_ownership_unverified: "media_rejected",
  internal_error: "transient"
}

/** How long TikTok's limits last when it does not say (it sends no reset header): its 1-minute window. */
export const rateWindowMs = 60_000
/** The rolling caps (posts per creator, the app's posting users) are per 24 hours: ask again in an hour. */
export const capWaitMs = 60 * 60 * 1000

/** How long to wait after a rate_limited refusal with this code, when the reply did not say. */
export const waitOf = (code: string): number =>
  code === "spam_risk_too_many_posts" || code === "reached_active_user_cap" || code === "spam_risk_too_many_pending_share" ? capWaitMs : rateWindowMs

/** A refusal in TikTok's envelope as a DeliveryError, with TikTok's log_id (what its support asks for). */
export const classifyTiktok = (reply: { readonly status: number; readonly body: unknown }): DeliveryError => {
  const error = Option.getOrUndefined(Option.map(readEnvelope(reply.body), (envelope) => envelope.error))
  if (error === undefined) {
    const text = typeof reply.body === "string" && reply.body !== "" ? reply.body.slice(0, 200) : `${network} answered ${reply.status}`
    return { category: categoryOfStatus(reply.status), code: `http_${reply.status}`, message: `${text} (HTTP ${reply.status})` }
  }
  const category = codes[error.code] ?? (reply.status >= 500 ? "transient" : categoryOfStatus(reply.status === 200 ? 400 : reply.status))
  const said = error.message === undefined || error.message === "" ? error.code : error.message
  const trace = error.log_id === undefined ? "" : `; log_id ${error.log_id}`
  return { category, code: error.code, message: `${network}: ${said} (${error.code}, HTTP ${reply.status}${trace})` }
}

const failReasons: Readonly<Record<string, DeliveryErrorCategory>> = {
  auth_removed: "auth_expired",
  file_format_check_failed: "media_rejected",
  duration_check_failed: "media_rejected",
  frame_rate_check_failed: "media_rejected",
  picture_size_check_failed: "media_rejected",
  video_pull_failed: "transient",
  photo_pull_failed: "transient",
  spam_risk_text: "content_rejected",
  spam_risk: "content_rejected",
  spam_risk_too_many_posts: "rate_limited",
  spam_risk_user_banned_from_posting: "permission_missing",
  internal: "transient"
}

/** A publish TikTok reports FAILED, by its fail_reason (an unknown reason is the media's: TikTok failed on it). */
export const failedPublish = (publishId: string, reason: string | undefined): DeliveryError => {
  const code = reason === undefined || reason === "" ? "publish_failed" : reason
  return {
    category: failReasons[code] ?? "media_rejected",
    code,
    message: `${network} could not publish ${publishId}: ${code}`
  }
}
