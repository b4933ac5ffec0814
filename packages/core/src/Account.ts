import { Either, Schema } from "effect"
import { Timestamp } from "./Timestamp.js"
import { quote } from "./Echo.js"
import { AccountId, isUuid, ProjectId } from "./Ids.js"
import { isPlatform, Placement, Platform } from "./Platform.js"

/**
 * How an account is connected. Capabilities (`limits`, `can`) are facts about the route,
 * not about the platform: the same network can allow a first comment through one route and
 * refuse it through another.
 * - `direct`: the platform's own public API with the account owner's token.
 * - `facebook_login`: instagram's API through Facebook Login for Business (graph.facebook.com),
 *   whose capabilities differ from Instagram Login's (`direct`).
 * - `aggregator`: a third-party aggregator's API.
 * - `aggregator_login`: the aggregator's login variant (adds people tags on instagram).
 * - `simulator`: Herald's built-in simulated network, with every capability of the platform.
 */
export const ConnectionRoute = Schema.Literal("direct", "facebook_login", "aggregator", "aggregator_login", "simulator")
export type ConnectionRoute = typeof ConnectionRoute.Type

export const AccountStatus = Schema.Literal("active", "needs_reconnect", "disconnected")
export type AccountStatus = typeof AccountStatus.Type

/**
 * What the platform reports of one option on this account, narrowing its module's spec: the values
 * a select accepts now, or the one value a toggle must take, and why (refusals and GET
 * /posting-rules say it).
 */
export const ReportedOption = Schema.Struct({
  values: Schema.optional(Schema.Array(Schema.String)),
  fixed: Schema.optional(Schema.Boolean),
  reason: Schema.String
})
export type ReportedOption = typeof ReportedOption.Type

/**
 * What the platform itself reports of one account (TikTok's creator_info), read when the account
 * is connected and again by each connection check, and kept with the account: create validates
 * against it without calling the platform.
 */
export const AccountReport = Schema.Struct({
  /** When the platform said it (ISO 8601, UTC). */
  checked_at: Timestamp,
  /** The longest video this account may post, when the platform says (else the module's). */
  video_seconds: Schema.NullOr(Schema.Int),
  /** false: the account posts only privately through this connection (an unaudited TikTok app). */
  public_posts: Schema.Boolean,
  /** Why public_posts is false (null when it is true). */
  public_posts_reason: Schema.NullOr(Schema.String),
  options: Schema.Record({ key: Schema.String, value: ReportedOption })
})
export type AccountReport = typeof AccountReport.Type

export class SocialAccount extends Schema.Class<SocialAccount>("SocialAccount")({
  id: AccountId,
  projectId: ProjectId,
  platform: Platform,
  username: Schema.String,
  route: ConnectionRoute,
  status: AccountStatus,
  /** Absent: the platform reports nothing of its own about the account (or has not yet). */
  report: Schema.optional(AccountReport)
}) {}

export const AccountLimits = Schema.Struct({
  caption_chars: Schema.Int,
  caption_chars_available: Schema.Int,
  max_media: Schema.Int,
  media_required: Schema.Boolean,
  video_seconds: Schema.NullOr(Schema.Int)
})
export type AccountLimits = typeof AccountLimits.Type

export const AccountCapabilities = Schema.Struct({
  placements: Schema.Array(Placement),
  first_comment: Schema.Boolean,
  people_tags: Schema.Boolean,
  reel_music: Schema.Boolean,
  documents: Schema.Boolean,
  mixed_media: Schema.Boolean,
  /** false: this connection posts only privately (AccountReport.public_posts_reason says why). */
  public_posts: Schema.Boolean
})
export type AccountCapabilities = typeof AccountCapabilities.Type

/** The readable name to send in social_accounts: platform:username, or the id when the username is not unique. */
export const accountRef = (account: SocialAccount, all: ReadonlyArray<SocialAccount>): string =>
  all.some((other) => other.id !== account.id && other.platform === account.platform && other.username === account.username)
    ? account.id
    : `${account.platform}:${account.username}`

export interface UnresolvedRef {
  readonly index: number
  readonly ref: string
  readonly reason: "unknown" | "ambiguous"
  readonly message: string
}

const sameName = (a: string, b: string) => a.replace(/^@/, "").toLowerCase() === b.replace(/^@/, "").toLowerCase()

/**
 * Resolves account references (uuid, platform:username, or a bare username that can only mean
 * one account). All of them resolve or none do: the post is never sent to the subset that matched.
 */
export const resolveAccountRefs = (
  refs: ReadonlyArray<string>,
  accounts: ReadonlyArray<SocialAccount>
): Either.Either<ReadonlyArray<SocialAccount>, ReadonlyArray<UnresolvedRef>> => {
  const resolved: Array<SocialAccount> = []
  const failures: Array<UnresolvedRef> = []
  refs.forEach((raw, index) => {
    const ref = raw.trim()
    const colon = ref.indexOf(":")
    const candidates = isUuid(ref)
      ? accounts.filter((account) => account.id.toLowerCase() === ref.toLowerCase())
      : colon > 0 && isPlatform(ref.slice(0, colon).toLowerCase())
      ? accounts.filter((account) =>
        account.platform === ref.slice(0, colon).toLowerCase() && sameName(account.username, ref.slice(colon + 1))
      )
      : accounts.filter((account) => sameName(account.username, ref))
    if (candidates.length === 1) {
      if (!resolved.some((account) => account.id === candidates[0]!.id)) resolved.push(candidates[0]!)
    } else if (candidates.length === 0) {
      failures.push({ index, ref: raw, reason: "unknown", message: `account ${quote(raw)} is not connected to this project` })
    } else {
      // What to send instead: each candidate's own ref (platform:username, or its id where that
      // is not unique), never the form that was just sent.
      const refs = candidates.map((account) => accountRef(account, accounts))
      failures.push({
        index,
        ref: raw,
        reason: "ambiguous",
        message: `account ${quote(raw)} matches ${candidates.length} accounts; send ${
          refs.every((one) => isUuid(one)) ? "the account id: " : ""
        }${refs.slice(0, -1).join(", ")} or ${refs.at(-1)!}`
      })
    }
  })
  return failures.length > 0 ? Either.left(failures) : Either.right(resolved)
}
