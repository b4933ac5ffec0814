import {
  describeViolation,
  type IdMint,
  type Media,
  type Placement,
  placementOf,
  type Platform,
  PlatformConfigurations,
  platformRegistry,
  type SocialAccount,
  splitMedia,
  validateDraft
} from "@herald/core"
import { Either, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { metricsUnsupported, type PublishBody, type SimError, type SimMetrics, type SimPost, type SimProbe, simulatedPermissions } from "./SimulatorWire.js"

export interface SimulatorOptions {
  /** Each answer waits a random time in this range. Default 120 to 600 ms; 0 for benchmarks. */
  readonly latency?: { readonly minMs: number; readonly maxMs: number }
  /** Retry-After of a #sim-ratelimit answer, in seconds. Default 30. */
  readonly retryAfterSeconds?: number
  /** How long a #sim-timeout answer is held (the post exists meanwhile). Default 35 s. */
  readonly timeoutHoldMs?: number
}

/** An HTTP answer, before it is written. holdMs: delay it past the client's patience. */
export interface Answer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
  readonly holdMs?: number
}

/** Everything one marker went through: the test's view of "published exactly once". */
export interface PublishRecord {
  readonly marker: string
  readonly platform: Platform
  readonly username: string
  /** Publish requests received for the marker, refused ones included. */
  readonly attempts: number
  /** The posts created for the marker: exactly one when Herald behaved. */
  readonly postIds: ReadonlyArray<string>
  /** DELETE requests received for those posts, refused ones included: at most one when Herald behaved. */
  readonly takedowns: number
}

interface StoredPost {
  readonly view: SimPost
  readonly createdAtMs: number
  deletedAtMs: number | null
  deleteRequests: number
}

/**
 * Trigger values, like a payment API's test card numbers. Documented in docs/simulator.md;
 * matched as whole tags in the text the post prints.
 */
export const triggers = {
  rateLimit: "#sim-ratelimit",
  serverError: "#sim-5xx",
  down: "#sim-down",
  timeout: "#sim-timeout",
  tokenExpired: "#sim-token-expired",
  reject: "#sim-reject"
} as const

/** Accounts with these usernames misbehave on every post. */
export const triggerUsernames = {
  /** Refuses every post (403 account_restricted): the account of a partial outcome. */
  restricted: "partial_fail",
  /** Any username starting with it has a dead token: 401 on every call and on probes. */
  expiredPrefix: "expired_",
  /** Any username starting with it never granted the publish permission: 403 on every post. */
  readOnlyPrefix: "readonly_",
  /** Any username starting with it has a token that expires an hour after each probe. */
  expiringPrefix: "expiring_"
} as const

/**
 * An account's login as a test set it (POST /_sim/accounts/{platform}/{username}): its token
 * valid, expired or revoked, when a valid one expires, and the permissions taken back from it.
 */
export interface SimLogin {
  readonly token: "valid" | "expired" | "revoked"
  readonly expiresAt: string | null
  readonly droppedPermissions: ReadonlyArray<string>
}

/** People-tag handles starting with it do not exist on the simulated network; every other one does. */
export const unknownHandlePrefix = "nobody_"

const hasTag = (text: string | null, tag: string) =>
  text !== null && new RegExp(`${tag.replace(/[-]/g, "\\-")}(?![\\w-])`, "i").test(text)

const error = (status: number, code: string, message: string, headers?: Record<string, string>): Answer => ({
  status,
  body: { error: { code, message } } satisfies SimError,
  ...(headers === undefined ? {} : { headers })
})

const digits = (count: number) => Array.from({ length: count }, (_, index) => index === 0 ? 1 + Math.floor(Math.random() * 9) : Math.floor(Math.random() * 10)).join("")
const code = (length: number) => randomBytes(length).toString("base64url").slice(0, length)
const tid = () => {
  const alphabet = "234567abcdefghijklmnopqrstuvwxyz"
  return Array.from({ length: 13 }, () => alphabet[Math.floor(Math.random() * 32)]).join("")
}

const ids: IdMint = { digits, code, tid }

/** A platform post id and the public URL its platform would give it. */
const livePost = (platform: Platform, username: string, placement: Placement) =>
  platformRegistry[platform].livePost(encodeURIComponent(username.replace(/^@/, "")), placement, ids)

const seedOf = (id: string) => [...id].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7)

/** How far each network carries a post, relative to x: deterministic, so every run ranks them alike. */
const platformReach: Record<Platform, number> = {
  x: 1,
  instagram: 1.6,
  facebook: 1.2,
  threads: 0.7,
  pinterest: 0.9,
  tiktok: 2.2,
  youtube: 1.8,
  linkedin: 0.8,
  bluesky: 0.5
}

/** Reels travel further than feed posts. */
const placementReach: Record<Placement, number> = { timeline: 1, reels: 1.7, stories: 0 }

/** Audiences by UTC weekday (Sunday first): midweek best, weekends quiet. */
const weekdayReach = [0.7, 1, 1.2, 1.25, 1.15, 0.95, 0.75]

/** Audiences by UTC hour: peaking mid-afternoon, never below 0.4. */
const hourReach = (hour: number) => 0.4 + 0.6 * Math.exp(-((hour - 15) ** 2) / 18)

/**
 * Engagement that starts with a first burst (a tenth of its audience sees it at once, so a
 * post synced moments after publishing has numbers) and grows with its age (fast in its first day,
 * then levelling off); it depends on the network, the placement and the weekday and hour it went out (UTC): the same post
 * id gives the same numbers at the same age, so tests and the demo see stable rankings and
 * best-times slots.
 */
const metricsAt = (post: StoredPost, nowMs: number): SimMetrics => {
  const ageHours = Math.max(0, (nowMs - post.createdAtMs) / 3_600_000)
  const seed = seedOf(post.view.id)
  const platform = post.view.platform as Platform
  const created = new Date(post.createdAtMs)
  const audience = (2000 + (seed % 2000)) * platformReach[platform] * placementReach[post.view.placement as Placement] *
    weekdayReach[created.getUTCDay()]! * hourReach(created.getUTCHours())
  const views = Math.floor(audience * (0.1 + 0.9 * (1 - Math.exp(-ageHours / 18))))
  const ratios: Record<keyof SimMetrics, number> = {
    views: 1,
    reach: 0.7,
    likes: 0.05 + (seed % 5) / 100,
    comments: 0.004,
    shares: 0.008,
    saves: 0.01
  }
  const value = (metric: keyof SimMetrics) => platformRegistry[platform].metrics.includes(metric) ? Math.floor(views * ratios[metric]) : null
  return {
    views: value("views"),
    likes: value("likes"),
    comments: value("comments"),
    shares: value("shares"),
    reach: value("reach"),
    saves: value("saves")
  }
}

const decodeConfigurations = Schema.decodeUnknownEither(PlatformConfigurations)

/**
 * The simulated networks: state and decisions, with no HTTP in them. Enforces each platform's
 * rules with core's validateDraft on the one account, as a platform would refuse an invalid post.
 */
export class SimulatorNetwork {
  private readonly posts = new Map<string, StoredPost>()
  private readonly markers = new Map<string, { account: SocialAccount; attempts: number; postIds: Array<string> }>()
  private readonly logins = new Map<string, SimLogin>()
  readonly retryAfterSeconds: number
  readonly timeoutHoldMs: number

  constructor(options: SimulatorOptions = {}) {
    this.retryAfterSeconds = options.retryAfterSeconds ?? 30
    this.timeoutHoldMs = options.timeoutHoldMs ?? 35_000
  }

  publish(body: PublishBody, nowMs: number): Answer {
    const { account, marker, text } = body
    const seen = this.markers.get(marker) ?? { account, attempts: 0, postIds: [] }
    seen.attempts += 1
    this.markers.set(marker, seen)
    const first = seen.attempts === 1
    const handle = `@${account.username}`
    if (account.username.startsWith(triggerUsernames.expiredPrefix) || hasTag(text, triggers.tokenExpired)) {
      return error(401, "token_expired", `the access token of ${handle} on ${account.platform} has expired`)
    }
    const refused = this.refusedLogin(account.platform, account.username)
    if (refused !== undefined) return refused
    if (this.loginOf(account.platform, account.username).droppedPermissions.includes("publish")) {
      return error(403, "missing_permission", `${handle} has taken back the publish permission on ${account.platform}`)
    }
    if (account.username === triggerUsernames.restricted) {
      return error(403, "account_restricted", `${handle} is restricted from posting on ${account.platform}`)
    }
    if (account.username.startsWith(triggerUsernames.readOnlyPrefix)) {
      return error(403, "missing_permission", `${handle} has not granted the publish permission on ${account.platform}`)
    }
    if (hasTag(text, triggers.reject)) {
      return error(422, "content_rejected", `${account.platform} rejected the post under its community standards`)
    }
    if (hasTag(text, triggers.down)) return error(503, "unavailable", `${account.platform} is unavailable`)
    if (first && hasTag(text, triggers.rateLimit)) {
      return error(429, "rate_limited", `${handle} made too many posts on ${account.platform}; wait and try again`, {
        "retry-after": String(this.retryAfterSeconds)
      })
    }
    if (first && hasTag(text, triggers.serverError)) return error(503, "unavailable", `${account.platform} had an internal error`)

    const configurations = decodeConfigurations(body.configuration === null ? {} : { [account.platform]: body.configuration })
    if (Either.isLeft(configurations)) {
      return error(400, "invalid_post", `platform_configurations.${account.platform}: ${configurations.left.message}`)
    }
    // The text arrives printed (signature included): judge it as the caption, without an override.
    const { caption: _override, ...configuration } = configurations.right[account.platform] ?? {}
    const violations = validateDraft({
      caption: text,
      signature: "",
      accounts: [account],
      media: body.media,
      platformConfigurations: { [account.platform]: configuration }
    })
    if (violations.length > 0) {
      const mediaOnly = violations.every((violation) => violation.field.startsWith("media_ids"))
      return error(400, mediaOnly ? "invalid_media" : "invalid_post", violations.map(describeViolation).join("; "))
    }
    const placement = placementOf(configuration)
    const split = splitMedia(account.platform, body.media.filter((item: Media) => item.kind !== "document"), placement)
    const { id, url } = livePost(account.platform, account.username, placement)
    const view: SimPost = {
      id,
      platform: account.platform,
      username: account.username,
      url,
      marker,
      created_at: new Date(nowMs).toISOString(),
      placement,
      media_sent: split.sent.length + body.media.filter((item: Media) => item.kind === "document").length,
      media_left: split.left.length,
      deleted_at: null
    }
    this.posts.set(id, { view, createdAtMs: nowMs, deletedAtMs: null, deleteRequests: 0 })
    seen.postIds.push(id)
    // A timeout that still creates the post: only reconciliation can tell Herald it went out.
    return first && hasTag(text, triggers.timeout)
      ? { status: 201, body: view, holdMs: this.timeoutHoldMs }
      : { status: 201, body: view }
  }

  /** The live post carrying the marker on this account, as a platform search would find it. */
  find(platform: string, username: string, marker: string): Answer {
    if (username.startsWith(triggerUsernames.expiredPrefix)) {
      return error(401, "token_expired", `the access token of @${username} on ${platform} has expired`)
    }
    const refused = this.refusedLogin(platform, username)
    if (refused !== undefined) return refused
    const seen = this.markers.get(marker)
    const live = (seen?.postIds ?? [])
      .map((id) => this.posts.get(id)!)
      .find((post) => post.deletedAtMs === null && post.view.platform === platform && post.view.username === username)
    return live === undefined
      ? error(404, "not_found", `no post carries marker ${marker}`)
      : { status: 200, body: this.viewOf(live) }
  }

  takedown(platform: string, id: string, nowMs: number): Answer {
    const post = this.posts.get(id)
    if (post !== undefined) post.deleteRequests += 1
    if (post === undefined || post.view.platform !== platform || post.deletedAtMs !== null) {
      return error(404, "not_found", `${platform} has no live post ${id}`)
    }
    post.deletedAtMs = nowMs
    return { status: 204, body: null }
  }

  metrics(platform: string, id: string, nowMs: number): Answer {
    const post = this.posts.get(id)
    if (post === undefined || post.view.platform !== platform || post.deletedAtMs !== null) {
      return error(404, "not_found", `${platform} has no live post ${id}`)
    }
    if (post.view.placement === "stories") {
      return error(400, metricsUnsupported, `${platform} reports no metrics on stories`)
    }
    return { status: 200, body: metricsAt(post, nowMs) }
  }

  /** People-tag lookup: whether a handle names a user of the network. */
  user(platform: string, handle: string): Answer {
    return handle.toLowerCase().startsWith(unknownHandlePrefix)
      ? error(404, "user_not_found", `${platform} has no user @${handle}`)
      : { status: 200, body: { username: handle } }
  }

  probe(platform: string, username: string, nowMs: number): Answer {
    if (username.startsWith(triggerUsernames.expiredPrefix)) {
      return error(401, "token_expired", `the access token of @${username} on ${platform} has expired`)
    }
    const refused = this.refusedLogin(platform, username)
    if (refused !== undefined) return refused
    const login = this.loginOf(platform, username)
    const body: typeof SimProbe.Encoded = {
      username,
      status: "ok",
      permissions: simulatedPermissions.filter((permission) =>
        !login.droppedPermissions.includes(permission) &&
        !(permission === "publish" && username.startsWith(triggerUsernames.readOnlyPrefix))
      ),
      expires_at: login.expiresAt ??
        (username.startsWith(triggerUsernames.expiringPrefix) ? new Date(nowMs + 3_600_000).toISOString() : null)
    }
    return { status: 200, body }
  }

  /** Sets an account's login (a failure trigger for connection health); a valid login with nothing dropped is the default. */
  setLogin(platform: string, username: string, login: SimLogin): Answer {
    this.logins.set(`${platform}/${username}`, login)
    return { status: 200, body: { platform, username, token: login.token, expires_at: login.expiresAt, dropped_permissions: login.droppedPermissions } }
  }

  private loginOf(platform: string, username: string): SimLogin {
    return this.logins.get(`${platform}/${username}`) ?? { token: "valid", expiresAt: null, droppedPermissions: [] }
  }

  /** 401 for a login a test expired or revoked; a valid token past its expires_at is expired too. */
  private refusedLogin(platform: string, username: string): Answer | undefined {
    const login = this.loginOf(platform, username)
    const lapsed = login.token === "valid" && login.expiresAt !== null && Date.parse(login.expiresAt) <= Date.now()
    if (login.token === "expired" || lapsed) {
      return error(401, "token_expired", `the access token of @${username} on ${platform} has expired`)
    }
    if (login.token === "revoked") {
      return error(401, "token_revoked", `@${username} revoked Herald's access on ${platform}`)
    }
    return undefined
  }

  post(id: string): SimPost | undefined {
    const post = this.posts.get(id)
    return post === undefined ? undefined : this.viewOf(post)
  }

  /** Every marker seen, with its attempts and the posts it created. */
  publishes(): ReadonlyArray<PublishRecord> {
    return [...this.markers].map(([marker, seen]) => ({
      marker,
      platform: seen.account.platform,
      username: seen.account.username,
      attempts: seen.attempts,
      postIds: [...seen.postIds],
      takedowns: seen.postIds.reduce((sum, id) => sum + this.posts.get(id)!.deleteRequests, 0)
    }))
  }

  get size(): number {
    return this.posts.size
  }

  private viewOf(post: StoredPost): SimPost {
    return { ...post.view, deleted_at: post.deletedAtMs === null ? null : new Date(post.deletedAtMs).toISOString() }
  }
}
