import { Schema } from "effect"
import { Placement } from "./Platform.js"

/**
 * platform_configurations, keyed by platform. These schemas fix the shape and type of every key
 * of the contract's option table; limits that depend on the account (counts, lengths, routes)
 * live in PlatformRules so that each violation can name its field and account.
 * Keys not listed are accepted and guardrail-checked like any other text.
 */
const extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const common = {
  caption: Schema.optional(Schema.String),
  placement: Schema.optional(Placement)
}

export const XReplySettings = Schema.Literal("everyone", "following", "mentioned_users", "subscribers", "verified")

export const XConfiguration = Schema.Struct({
  ...common,
  first_comment: Schema.optional(Schema.String),
  thread: Schema.optional(Schema.Array(Schema.String)),
  reply_settings: Schema.optional(XReplySettings),
  poll: Schema.optional(Schema.Struct({
    options: Schema.Array(Schema.String),
    duration_minutes: Schema.optional(Schema.Int)
  }))
}, extra)

export const InstagramConfiguration = Schema.Struct({
  ...common,
  first_comment: Schema.optional(Schema.String),
  is_paid_partnership: Schema.optional(Schema.Boolean),
  branded_content_sponsors: Schema.optional(Schema.Array(Schema.String)),
  is_ai_generated: Schema.optional(Schema.Boolean)
}, extra)

export const ThreadsReplyControl = Schema.Literal("everyone", "accounts_you_follow", "mentioned_only")

export const ThreadsConfiguration = Schema.Struct({
  ...common,
  topic_tag: Schema.optional(Schema.String),
  reply_control: Schema.optional(ThreadsReplyControl),
  poll_option_a: Schema.optional(Schema.String),
  poll_option_b: Schema.optional(Schema.String),
  poll_option_c: Schema.optional(Schema.String),
  poll_option_d: Schema.optional(Schema.String),
  gif_id: Schema.optional(Schema.String),
  crosspost_ig_story: Schema.optional(Schema.Boolean)
}, extra)

export const PinterestConfiguration = Schema.Struct({
  ...common,
  title: Schema.optional(Schema.String),
  board_ids: Schema.optional(Schema.Array(Schema.String)),
  link: Schema.optional(Schema.String),
  is_ai_generated: Schema.optional(Schema.Boolean)
}, extra)

export const TiktokPrivacyStatus = Schema.Literal(
  "PUBLIC_TO_EVERYONE",
  "MUTUAL_FOLLOW_FRIENDS",
  "FOLLOWER_OF_CREATOR",
  "SELF_ONLY"
)

export const TiktokConfiguration = Schema.Struct({
  ...common,
  is_brand_content: Schema.optional(Schema.Boolean),
  is_organic_brand_content: Schema.optional(Schema.Boolean),
  is_ai_generated: Schema.optional(Schema.Boolean),
  privacy_status: Schema.optional(TiktokPrivacyStatus)
}, extra)

export const YoutubeConfiguration = Schema.Struct({
  ...common,
  has_paid_product_placement: Schema.optional(Schema.Boolean),
  contains_synthetic_media: Schema.optional(Schema.Boolean)
}, extra)

export const LinkedinConfiguration = Schema.Struct({
  ...common,
  document_title: Schema.optional(Schema.String)
}, extra)

export const FacebookConfiguration = Schema.Struct(common, extra)
export const BlueskyConfiguration = Schema.Struct(common, extra)

export const PlatformConfigurations = Schema.Struct({
  x: Schema.optional(XConfiguration),
  instagram: Schema.optional(InstagramConfiguration),
  facebook: Schema.optional(FacebookConfiguration),
  threads: Schema.optional(ThreadsConfiguration),
  pinterest: Schema.optional(PinterestConfiguration),
  tiktok: Schema.optional(TiktokConfiguration),
  youtube: Schema.optional(YoutubeConfiguration),
  linkedin: Schema.optional(LinkedinConfiguration),
  bluesky: Schema.optional(BlueskyConfiguration)
})
export type PlatformConfigurations = typeof PlatformConfigurations.Type
