import type { Headers } from "@effect/platform/Headers"
import type { DeliveryError } from "@herald/core"
import { Schema } from "effect"

/**
 * X API v2's shapes, as far as Herald reads them (docs.x.com's openapi.json, info.version 2.167;
 * the fields Herald sends are built in XPublisher.ts).
 */

/** GET /2/users/me. */
export const UsersMe = Schema.Struct({
  data: Schema.Struct({ id: Schema.String, username: Schema.String })
})

/** POST /2/tweets: 201 `{ data: { id, text } }`. */
export const CreatedPost = Schema.Struct({
  data: Schema.Struct({ id: Schema.String, text: Schema.String })
})

/** DELETE /2/tweets/{id}. */
export const DeletedPost = Schema.Struct({
  data: Schema.Struct({ deleted: Schema.Boolean })
})

export const ProcessingInfo = Schema.Struct({
  state: Schema.Literal("pending", "in_progress", "failed", "succeeded"),
  check_after_secs: Schema.optional(Schema.Number),
  progress_percent: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.Struct({ code: Schema.optional(Schema.Number), name: Schema.optional(Schema.String), message: Schema.optional(Schema.String) }))
})

/** POST /2/media/upload, .../initialize, .../finalize and GET /2/media/upload?command=STATUS. */
export const UploadedMedia = Schema.Struct({
  data: Schema.Struct({
    id: Schema.String,
    processing_info: Schema.optional(ProcessingInfo)
  })
})

/** Both names X has used for reposts: the OpenAPI's repost_count, and retweet_count before it. */
const PublicMetrics = Schema.Struct({
  impression_count: Schema.optional(Schema.Number),
  like_count: Schema.optional(Schema.Number),
  reply_count: Schema.optional(Schema.Number),
  repost_count: Schema.optional(Schema.Number),
  retweet_count: Schema.optional(Schema.Number),
  quote_count: Schema.optional(Schema.Number),
  bookmark_count: Schema.optional(Schema.Number)
})

const NonPublicMetrics = Schema.Struct({
  impression_count: Schema.optional(Schema.Number),
  url_link_clicks: Schema.optional(Schema.Number),
  user_profile_clicks: Schema.optional(Schema.Number)
})

const UrlEntity = Schema.Struct({
  url: Schema.optional(Schema.NullOr(Schema.String)),
  expanded_url: Schema.optional(Schema.NullOr(Schema.String))
})

export const Post = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  created_at: Schema.optional(Schema.String),
  public_metrics: Schema.optional(PublicMetrics),
  non_public_metrics: Schema.optional(NonPublicMetrics),
  entities: Schema.optional(Schema.Struct({ urls: Schema.optional(Schema.NullOr(Schema.Array(UrlEntity))) })),
  attachments: Schema.optional(Schema.Struct({ media_keys: Schema.optional(Schema.Array(Schema.String)) }))
})
export type Post = typeof Post.Type

const ProblemEntry = Schema.Struct({
  type: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String)
})

/** GET /2/tweets/{id}: the post, or (still 200) an errors[] naming it not found. */
export const PostLookup = Schema.Struct({
  data: Schema.optional(Post),
  errors: Schema.optional(Schema.Array(ProblemEntry))
})

/** GET /2/users/{id}/tweets. */
export const Timeline = Schema.Struct({
  data: Schema.optional(Schema.Array(Post))
})

/**
 * X's error bodies: a problem (`{ title, detail, type, status }`, sometimes with `errors[]` of
 * `{ message, parameters }`), or the legacy `{ errors: [{ code, message }] }`. (The token
 * endpoint's OAuth errors are the kit's, OAuth2.ts.)
 */
interface ErrorBody {
  readonly title?: unknown
  readonly detail?: unknown
  readonly type?: unknown
  readonly errors?: unknown
}

const text = (value: unknown): string | undefined => typeof value === "string" && value !== "" ? value : undefined

/** What X said, in its own words: its problem type (or code) and its messages. */
const said = (body: unknown, status: number): { readonly code: string; readonly message: string } => {
  if (typeof body !== "object" || body === null) {
    return { code: `http_${status}`, message: text(body)?.slice(0, 300) ?? `HTTP ${status}` }
  }
  const problem = body as ErrorBody
  const entries = Array.isArray(problem.errors) ? problem.errors as ReadonlyArray<Record<string, unknown>> : []
  const messages = [
    text(problem.detail),
    ...entries.map((entry) => text(entry.message) ?? text(entry.detail))
  ].filter((message): message is string => message !== undefined)
  const type = text(problem.type)
  const legacyCode = entries.find((entry) => typeof entry.code === "number")?.code
  const code = type !== undefined && type !== "about:blank"
    ? type.replace(/^https:\/\/api\.(x|twitter)\.com\/2\/problems\//, "")
    : legacyCode !== undefined ? `x_${legacyCode}` : text(problem.title)?.toLowerCase().replace(/\s+/g, "_") ?? `http_${status}`
  return { code, message: messages.length > 0 ? [...new Set(messages)].join("; ") : text(problem.title) ?? `HTTP ${status}` }
}

const duplicate = /duplicate content/i
const mediaWords = /media/i
/** X's words for a token without the scope, an app without the access, a suspended account. */
const notAllowedTypes = new Set(["client-forbidden", "client-not-enrolled", "unsupported-authentication", "user-suspended"])
const notAllowed = /^forbidden\.?$|scope|not permitted to (access|use)|suspended/i

/**
 * An X failure on Herald's taxonomy (docs/networks/x.md has the table). `afterMedia`: the call
 * was a media upload, where any 400 is the media's fault.
 */
export const classify = (
  reply: { readonly status: number; readonly body: unknown; readonly headers: Headers },
  context: { readonly media: boolean } = { media: false }
): DeliveryError => {
  const { status } = reply
  const { code, message } = said(reply.body, status)
  const error = (category: DeliveryError["category"]): DeliveryError => ({ category, code, message })
  if (status === 429) return error("rate_limited")
  if (status >= 500) return error("transient")
  if (status === 401) return error("auth_expired")
  if (status === 403) {
    if (duplicate.test(message)) return error("content_rejected")
    return notAllowedTypes.has(code) || notAllowed.test(message) ? error("permission_missing") : error("content_rejected")
  }
  if (status === 404) return error("not_found")
  if (status === 400 || status === 413 || status === 415) {
    if (context.media || mediaWords.test(message)) return error("media_rejected")
    return error("content_rejected")
  }
  return error(status === 408 ? "transient" : "content_rejected")
}

/** POST /2/media/upload/{id}/append. */
export const AppendedSegment = Schema.Struct({
  data: Schema.optional(Schema.Struct({ expires_at: Schema.optional(Schema.Number) }))
})

/** POST /2/media/metadata. */
export const MetadataSet = Schema.Struct({
  data: Schema.Struct({ id: Schema.String })
})
