import { Media, SocialAccount } from "@herald/core"
import { Schema } from "effect"

/**
 * The simulator's HTTP API, shared by its server and its client. It looks like a platform API:
 * JSON bodies, a platform post id and a public URL back, HTTP statuses and Retry-After for errors.
 */

/** POST /v1/{platform}/posts */
export const PublishBody = Schema.Struct({
  account: SocialAccount,
  text: Schema.NullOr(Schema.String),
  media: Schema.Array(Media),
  /** The platform's entry of platform_configurations, or null. */
  configuration: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** Herald's mark, stored on the post so GET /v1/{platform}/posts?marker= finds it. */
  marker: Schema.String
})
export type PublishBody = typeof PublishBody.Type

export const SimPost = Schema.Struct({
  id: Schema.String,
  platform: Schema.String,
  username: Schema.String,
  url: Schema.String,
  marker: Schema.String,
  created_at: Schema.String,
  placement: Schema.String,
  media_sent: Schema.Int,
  media_left: Schema.Int,
  deleted_at: Schema.NullOr(Schema.String)
})
export type SimPost = typeof SimPost.Type

/**
 * An error answer. code is machine-readable: invalid_post, invalid_media, content_rejected,
 * token_expired, account_restricted, missing_permission, rate_limited, unavailable, not_found.
 */
export const SimError = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Schema.String })
})
export type SimError = typeof SimError.Type

/** The error code (HTTP 400) of a metrics read on a kind of post the network never reports on: stories. */
export const metricsUnsupported = "metrics_unsupported"

/** Engagement so far; null: the platform does not report that metric. */
export const SimMetrics = Schema.Struct({
  views: Schema.NullOr(Schema.Int),
  likes: Schema.NullOr(Schema.Int),
  comments: Schema.NullOr(Schema.Int),
  shares: Schema.NullOr(Schema.Int),
  reach: Schema.NullOr(Schema.Int),
  saves: Schema.NullOr(Schema.Int)
})
export type SimMetrics = typeof SimMetrics.Type

/** What a simulated token can be granted; Herald's calls need all of them. */
export const simulatedPermissions = ["publish", "read", "insights"] as const

/** GET /v1/{platform}/accounts/{username}: the token works; what it carries and when it expires (null: never). */
export const SimProbe = Schema.Struct({
  username: Schema.String,
  status: Schema.Literal("ok"),
  permissions: Schema.Array(Schema.String),
  expires_at: Schema.NullOr(Schema.DateTimeUtc)
})
export type SimProbe = typeof SimProbe.Type

/** POST /_sim/accounts/{platform}/{username}: an account's login from now on (fields left out: valid, no expiry, nothing dropped). */
export const SimLoginBody = Schema.Struct({
  token: Schema.optionalWith(Schema.Literal("valid", "expired", "revoked"), { default: () => "valid" as const }),
  expires_at: Schema.optionalWith(Schema.NullOr(Schema.DateTimeUtc), { default: () => null }),
  dropped_permissions: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})
