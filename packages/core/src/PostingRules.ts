import { Schema } from "effect"
import {
  AccountCapabilities,
  AccountLimits,
  accountRef,
  AccountStatus,
  ConnectionRoute,
  type SocialAccount
} from "./Account.js"
import { AccountId } from "./Ids.js"
import { Placement, Platform } from "./Platform.js"
import { ThreadsReplyControl, TiktokPrivacyStatus, XReplySettings } from "./PlatformConfiguration.js"
import { capabilitiesFor, captionCeiling, limitsFor } from "./PlatformRules.js"

/** A row of GET /social-accounts. */
export const AccountRow = Schema.Struct({
  id: AccountId,
  platform: Platform,
  username: Schema.String,
  status: AccountStatus,
  ref: Schema.String,
  route: ConnectionRoute,
  limits: AccountLimits,
  can: AccountCapabilities
})
export type AccountRow = typeof AccountRow.Type

export const toAccountRow = (account: SocialAccount, all: ReadonlyArray<SocialAccount>, signature: string): AccountRow => ({
  id: account.id,
  platform: account.platform,
  username: account.username,
  status: account.status,
  ref: accountRef(account, all),
  route: account.route,
  limits: limitsFor(account, signature),
  can: capabilitiesFor(account.platform, account.route)
})

export const PostingOptionKind = Schema.Literal("text", "textarea", "list", "toggle", "select")
export type PostingOptionKind = typeof PostingOptionKind.Type

/** One platform_configurations key an account accepts, with its ceilings and placement gates. */
export const PostingOption = Schema.Struct({
  key: Schema.String,
  kind: PostingOptionKind,
  /** The accepted values of a select; null for free input. */
  values: Schema.NullOr(Schema.Array(Schema.String)),
  default: Schema.NullOr(Schema.Union(Schema.String, Schema.Boolean)),
  max_length: Schema.NullOr(Schema.Int),
  max_items: Schema.NullOr(Schema.Int),
  only_placement: Schema.NullOr(Schema.Array(Placement)),
  except_placement: Schema.NullOr(Schema.Array(Placement)),
  note: Schema.String
})
export type PostingOption = typeof PostingOption.Type

export const PinterestBoard = Schema.Struct({
  name: Schema.String,
  eligible: Schema.Boolean,
  reason: Schema.optional(Schema.String)
})
export type PinterestBoard = typeof PinterestBoard.Type

/**
 * GET /posting-rules, one account. `boards` is carried by pinterest accounts only (null when the
 * board lookup is unavailable) and is absent from every other platform's entry, where it means nothing.
 */
export const AccountPostingRules = Schema.Struct({
  account_id: AccountId,
  ref: Schema.String,
  platform: Platform,
  limits: AccountLimits,
  can: AccountCapabilities,
  options: Schema.Array(PostingOption),
  boards: Schema.optional(Schema.NullOr(Schema.Array(PinterestBoard)))
})
export type AccountPostingRules = typeof AccountPostingRules.Type

const option = (
  key: string,
  kind: PostingOptionKind,
  note: string,
  fields: Partial<Omit<PostingOption, "key" | "kind" | "note">> = {}
): PostingOption => ({
  key,
  kind,
  values: null,
  default: null,
  max_length: null,
  max_items: null,
  only_placement: null,
  except_placement: null,
  note,
  ...fields
})

const toggle = (key: string, note: string) => option(key, "toggle", note, { default: false })

type Brief = { readonly limits: AccountRow["limits"]; readonly can: AccountRow["can"] }

/** caption and placement, as far as this account's route takes them. */
const commonOptions = ({ can, limits }: Brief): Array<PostingOption> => {
  const stories = can.placements.includes("stories") ? { except_placement: ["stories" as const] } : {}
  const caption = option("caption", "textarea", "Replaces the main caption on this platform; the signature is still appended.", {
    max_length: limits.caption_chars_available,
    ...stories
  })
  return can.placements.length === 0 ? [caption] : [
    caption,
    option("placement", "select", "Where the post appears. Reels need a video; stories need media and print no caption.", {
      values: can.placements,
      default: "timeline"
    })
  ]
}

/** The platform's own keys. Keys this route cannot honour are left out: asking for them refuses the post. */
const platformOptions = (platform: Platform, { can }: Brief): Array<PostingOption> => {
  switch (platform) {
    case "x":
      return [
        option("first_comment", "textarea", "Auto-replied under the tweet.", { max_length: captionCeiling.x }),
        option("thread", "list", "Follow-up tweets chained under the main one; the signature rides the main tweet only.", {
          max_items: 4,
          max_length: captionCeiling.x
        }),
        option("reply_settings", "select", "Who may reply.", { values: XReplySettings.literals }),
        option("poll", "list", "{ options: 2 to 4 choices, duration_minutes: 5 to 10080 }; not with media.", {
          max_items: 4,
          max_length: 25
        })
      ]
    case "instagram":
      return [
        ...(can.first_comment
          ? [option("first_comment", "textarea", "Posted as the first comment.", { max_length: 2200, except_placement: ["stories" as const] })]
          : []),
        toggle("is_paid_partnership", "Labels the post as a paid partnership; set at publish, cannot be added later."),
        option("branded_content_sponsors", "list", "Usernames of the sponsoring brands.", { max_items: 2 }),
        toggle("is_ai_generated", "Labels the post as AI-generated; set at publish, cannot be added later.")
      ]
    case "threads":
      return [
        option("topic_tag", "text", "One word, without # or periods or ampersands.", { max_length: 50 }),
        option("reply_control", "select", "Who may reply.", { values: ThreadsReplyControl.literals }),
        ...(["a", "b", "c", "d"] as const).map((letter) =>
          option(`poll_option_${letter}`, "text", "Poll options fill in order from a, at least two; a poll rides only a post with no media.", {
            max_length: 25
          })
        ),
        option("gif_id", "text", "A GIF from a GIF-hosting site; only on a post with no media and no poll."),
        toggle("crosspost_ig_story", "Also shares the post to the linked Instagram story.")
      ]
    case "pinterest":
      return [
        option("title", "text", "The pin title.", { max_length: 100 }),
        option("board_ids", "list", "Boards to pin to; without it the pin lands on the account's default board."),
        option("link", "text", "Where the pin leads: an http or https URL.", { max_length: 2048 }),
        toggle("is_ai_generated", "Labels the pin as AI-generated; set at publish, cannot be added later.")
      ]
    case "tiktok":
      return [
        toggle("is_brand_content", "A third party paid for this post; branded content cannot be private (SELF_ONLY)."),
        toggle("is_organic_brand_content", "Promotes your own business."),
        toggle("is_ai_generated", "Labels the post as AI-generated; set at publish, cannot be added later."),
        // TikTok forbids a preselected audience, so there is no default.
        option("privacy_status", "select", "Who can watch.", { values: TiktokPrivacyStatus.literals })
      ]
    case "youtube":
      return [
        toggle("has_paid_product_placement", "Discloses paid product placement; set at publish, cannot be added later."),
        toggle("contains_synthetic_media", "Discloses realistic altered or synthetic content; set at publish, cannot be added later.")
      ]
    case "linkedin":
      return can.documents
        ? [option("document_title", "text", "Names a PDF document post; defaults to the file name.", { max_length: 400 })]
        : []
    case "facebook":
    case "bluesky":
      return []
  }
}

/** GET /posting-rules for one account: its limits/can brief and every key it accepts. */
export const postingRulesFor = (
  account: SocialAccount,
  all: ReadonlyArray<SocialAccount>,
  signature: string,
  boards: ReadonlyArray<PinterestBoard> | null
): AccountPostingRules => {
  const brief: Brief = { limits: limitsFor(account, signature), can: capabilitiesFor(account.platform, account.route) }
  return {
    account_id: account.id,
    ref: accountRef(account, all),
    platform: account.platform,
    ...brief,
    options: [...commonOptions(brief), ...platformOptions(account.platform, brief)],
    ...(account.platform === "pinterest" ? { boards } : {})
  }
}
