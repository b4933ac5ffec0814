/**
 * Ayrshare's API as Herald calls it: the two keys (the account's API key as a Bearer token, and a
 * user profile's Profile-Key header), JSON bodies, and its error envelope read onto the delivery
 * error taxonomy. What each endpoint takes and answers: docs/networks/aggregator.md.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import type { AccountTokens, Credentials, DeliveryError, MediaStorage, PublishCheckpoints } from "@herald/core"
import { Effect, Schema } from "effect"
import { categoryOfStatus, type Classify, expectOk, PlatformRefusal } from "../kit/index.js"

export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints

/** The keys an Ayrshare account is reached with, as stored (sealed) with the Herald account. */
export interface AyrshareKeys {
  readonly api_key: string
  /** Absent: the API key's own primary profile. */
  readonly profile_key?: string
}

export const keysOf = (credentials: Credentials): AyrshareKeys => ({
  api_key: typeof credentials.api_key === "string" ? credentials.api_key : "",
  ...(typeof credentials.profile_key === "string" ? { profile_key: credentials.profile_key } : {})
})

/** A request to `path` (relative to the API's base URL) carrying the keys. */
export const ayrshare = (method: "GET" | "POST" | "DELETE", path: string, keys: AyrshareKeys, body?: unknown) => {
  const base = HttpClientRequest.make(method)(path).pipe(
    HttpClientRequest.bearerToken(keys.api_key),
    HttpClientRequest.acceptJson
  )
  const withProfile = keys.profile_key === undefined ? base : HttpClientRequest.setHeader(base, "Profile-Key", keys.profile_key)
  return body === undefined ? withProfile : HttpClientRequest.bodyUnsafeJson(withProfile, body)
}

/** One error of Ayrshare's envelope: a top-level one, or one per network in `errors`. */
const EnvelopeError = Schema.Struct({
  code: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  message: Schema.optional(Schema.String),
  platform: Schema.optional(Schema.String)
})
const Envelope = Schema.Struct({
  code: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  message: Schema.optional(Schema.String),
  errors: Schema.optional(Schema.Array(EnvelopeError))
})
const decodeEnvelope = Schema.decodeUnknownOption(Envelope)

/**
 * Ayrshare's numeric codes whose meaning is more precise than the HTTP status: the network's
 * authorization lost (the profile must link Instagram again), media the network could not fetch,
 * and duplicates (Instagram and Ayrshare both refuse the same post twice).
 */
const categoryOfCode: Readonly<Record<string, DeliveryError["category"]>> = {
  "161": "auth_expired",
  "440": "media_rejected",
  "107": "content_rejected",
  "110": "content_rejected"
}

/** Ayrshare's error envelope onto the taxonomy, Ayrshare's code and message kept. */
export const classify: Classify = ({ body, status }) => {
  const envelope = decodeEnvelope(body)
  const first = envelope._tag === "Some"
    ? envelope.value.errors?.find((error) => error.platform === undefined || error.platform === "instagram") ?? envelope.value
    : undefined
  const code = first?.code === undefined ? undefined : String(first.code)
  const category = (code === undefined ? undefined : categoryOfCode[code]) ?? categoryOfStatus(status)
  const message = first?.message ?? (typeof body === "string" && body.length > 0 ? body.slice(0, 300) : `Ayrshare answered HTTP ${status}`)
  return { category, code: code === undefined ? `ayrshare_http_${status}` : `ayrshare_${code}`, message: `Ayrshare: ${message}` }
}

/**
 * Ayrshare's rate-limit window. Its errors page (https://www.ayrshare.com/docs/errors/errors-http)
 * documents no Retry-After or reset header on a 429, only `x-ratelimit-max` and
 * `x-ratelimit-count` per 5-minute window, which do not say when the window began: a retry
 * sooner than the whole window may meet the same limit, and the page suspends a profile that
 * collects enough 429s in a day.
 */
const rateWindowMs = 5 * 60 * 1000

/** A rate_limited refusal that named no wait waits out Ayrshare's window; a header it sent is kept. */
const withWindow = (refused: PlatformRefusal): PlatformRefusal =>
  refused.error.category === "rate_limited" && refused.retryAfterMs === null
    ? new PlatformRefusal({ error: refused.error, retryAfterMs: rateWindowMs })
    : refused

/**
 * Sends `request` with `client` and reads a 2xx reply with `schema`, or Ayrshare's refusal: every
 * Ayrshare call (publish, reads, probe, connect) goes through here, so each 429 gets the window.
 */
export const send = <A, I>(client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, schema: Schema.Schema<A, I>) =>
  client.execute(request).pipe(
    Effect.flatMap(expectOk(schema, classify)),
    Effect.catchTag("PlatformRefusal", (refused) => Effect.fail(withWindow(refused)))
  )

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

/** One network's part of a post. */
export const NetworkPost = Schema.Struct({
  status: Schema.String,
  id: Schema.optional(Schema.String),
  platform: Schema.String,
  postUrl: Schema.optional(Schema.String)
})

/** POST /post's success: Ayrshare's own post id, and each network's post. */
export const PostReply = Schema.Struct({
  status: Schema.Literal("success"),
  id: Schema.String,
  postIds: Schema.Array(NetworkPost)
})

/** GET /user: the networks the profile links, and who it is on each. */
export const UserReply = Schema.Struct({
  activeSocialAccounts: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  displayNames: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      platform: Schema.String,
      username: Schema.optional(Schema.String),
      id: Schema.optional(Schema.String),
      displayName: Schema.optional(Schema.String)
    })),
    { default: () => [] }
  )
})

/** GET /history: the profile's recent posts, newest first. */
export const HistoryReply = Schema.Struct({
  history: Schema.Array(Schema.Struct({
    id: Schema.String,
    post: Schema.optional(Schema.String),
    status: Schema.optional(Schema.String),
    created: Schema.optional(Schema.String),
    postIds: Schema.optionalWith(Schema.Array(NetworkPost), { default: () => [] })
  }))
})

const Count = Schema.optional(Schema.NullOr(Schema.Number))

/** POST /analytics/post: Instagram's counts for one post (Meta's insights, as Ayrshare names them). */
export const AnalyticsReply = Schema.Struct({
  instagram: Schema.Struct({
    analytics: Schema.Struct({
      likeCount: Count,
      commentsCount: Count,
      reachCount: Count,
      savedCount: Count,
      sharesCount: Count,
      viewsCount: Count
    })
  })
})

/** Replies whose body Herald does not read (a delete, a comment): any JSON. */
export const Acknowledged = Schema.Unknown
