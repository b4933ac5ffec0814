/**
 * What TikTok says a creator may post now (POST /v2/post/publish/creator_info/query/, asked
 * before every direct post as TikTok requires): the privacy levels offered, the longest video,
 * whether comments, duets and stitches are off; and what Herald keeps of it with the account
 * (AccountReport), which create validates against without calling TikTok.
 */
import type { HttpClient } from "@effect/platform"
import { type AccountReport, type ReportedOption, TiktokPrivacyStatus } from "@herald/core"
import { DateTime, Effect, Schema } from "effect"
import { api, call } from "./TiktokApi.js"

export const CreatorInfo = Schema.Struct({
  creator_username: Schema.String,
  creator_nickname: Schema.optional(Schema.String),
  creator_avatar_url: Schema.optional(Schema.String),
  privacy_level_options: Schema.Array(Schema.String),
  comment_disabled: Schema.Boolean,
  duet_disabled: Schema.Boolean,
  stitch_disabled: Schema.Boolean,
  max_video_post_duration_sec: Schema.Number
})
export type CreatorInfo = typeof CreatorInfo.Type

export const creatorInfo = (client: HttpClient.HttpClient, accessToken: string) =>
  call(client, api("POST", "/v2/post/publish/creator_info/query/", accessToken, {}), CreatorInfo)

/** Whether TikTok has audited this Herald's app (HERALD_TIKTOK_AUDITED): until it has, posts are private. */
export interface AppStanding {
  readonly audited: boolean
}

export const unauditedReason =
  "this Herald's TikTok app has not passed TikTok's audit, and TikTok lets an unaudited app post only privately (SELF_ONLY); set HERALD_TIKTOK_AUDITED once it has"

/** The privacy levels Herald may send for this creator: TikTok's offer, SELF_ONLY alone for an unaudited app. */
export const privacyLevels = (info: CreatorInfo, standing: AppStanding): ReadonlyArray<string> =>
  standing.audited ? info.privacy_level_options : info.privacy_level_options.filter((level) => level === "SELF_ONLY")

const known = (level: string) => (TiktokPrivacyStatus.literals as ReadonlyArray<string>).includes(level)

/** creator_info as the account's report: its limits and the option values it allows now. */
export const reportOf = (info: CreatorInfo, standing: AppStanding, at: DateTime.Utc): AccountReport => {
  const options: Record<string, ReportedOption> = {
    privacy_status: {
      values: privacyLevels(info, standing).filter(known),
      reason: standing.audited ? "These are the privacy levels TikTok offers this creator now." : `Only SELF_ONLY: ${unauditedReason}.`
    }
  }
  if (!standing.audited) {
    options.is_brand_content = { fixed: false, reason: "branded content cannot be private, and this Herald's TikTok app posts only privately until TikTok audits it." }
  }
  const off = (what: string): ReportedOption => ({ fixed: true, reason: `The creator has turned ${what} off in TikTok.` })
  if (info.comment_disabled) options.disable_comment = off("comments")
  if (info.duet_disabled) options.disable_duet = off("duets")
  if (info.stitch_disabled) options.disable_stitch = off("stitches")
  return {
    checked_at: DateTime.formatIso(at),
    video_seconds: Math.floor(info.max_video_post_duration_sec),
    public_posts: standing.audited,
    public_posts_reason: standing.audited ? null : unauditedReason,
    options
  }
}

/** The creator's report now. */
export const readReport = (client: HttpClient.HttpClient, accessToken: string, standing: AppStanding) =>
  Effect.zipWith(creatorInfo(client, accessToken), DateTime.now, (info, now) => ({ info, report: reportOf(info, standing, now) }))
