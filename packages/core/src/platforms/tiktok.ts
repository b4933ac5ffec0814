import { Schema } from "effect"
import { captionLength } from "./CaptionLength.js"
import {
  configurationSchema,
  everyRoute,
  mediaRules,
  optionField,
  type PlatformModule,
  refuse,
  select,
  type Target,
  toggle
} from "./PlatformModule.js"

export const TiktokPrivacyStatus = Schema.Literal(
  "PUBLIC_TO_EVERYONE",
  "MUTUAL_FOLLOW_FRIENDS",
  "FOLLOWER_OF_CREATOR",
  "SELF_ONLY"
)

const videoOnly = (key: string, value: boolean, target: Target): string | null =>
  value && !target.visual.some((item) => item.kind === "video") ? `tiktok takes ${key} on videos only and this post carries no video` : null

const options = {
  is_brand_content: toggle("A third party paid for this post; branded content cannot be private (SELF_ONLY)."),
  is_organic_brand_content: toggle("Promotes your own business."),
  // Content Posting API: is_aigc is a field of video posts; photo posts have none.
  is_ai_generated: toggle("Labels a video as AI-generated; set at publish, cannot be added later. TikTok labels videos only.", {
    refuse: (value, target) => videoOnly("is_ai_generated", value, target)
  }),
  // Unset, a post goes out SELF_ONLY: the level TikTok offers every creator, so nothing becomes
  // public that nobody chose to make public. GET /posting-rules lists the values the creator allows now.
  privacy_status: select(TiktokPrivacyStatus, "Who can watch. Unset: SELF_ONLY (only the creator).", { default: "SELF_ONLY" }),
  disable_comment: toggle("Turns comments off on this post."),
  disable_duet: toggle("Turns duets off on this video (photo posts have none).", {
    refuse: (value, target) => videoOnly("disable_duet", value, target)
  }),
  disable_stitch: toggle("Turns stitches off on this video (photo posts have none).", {
    refuse: (value, target) => videoOnly("disable_stitch", value, target)
  })
}

export const TiktokConfiguration = configurationSchema(options)

export const tiktok: PlatformModule = {
  look: { name: "TikTok", color: "#25f4ee" },
  // Content Posting API, Direct Post: post_info.title (the video caption) "max 2200".
  caption: { ceiling: 2200, length: captionLength.tiktok, optional: false },
  media: mediaRules({
    // Content Posting API photo posts, photo_images up to 35.
    max: 35,
    required: true,
    // Content Posting API, 10 minutes (the creator's max_video_post_duration_sec may be lower).
    videoSeconds: 600
  }),
  placements: [],
  routes: everyRoute(),
  options,
  rules: [
    // TikTok's content sharing guidelines: branded content (a paid partnership) cannot be private.
    // Promoting one's own business (is_organic_brand_content) carries no such rule.
    (target) => {
      const configuration = target.draft.platformConfigurations.tiktok
      return configuration?.is_brand_content === true && configuration.privacy_status === "SELF_ONLY"
        ? [refuse(
          optionField("tiktok", "privacy_status"),
          target.ref,
          "tiktok does not let branded content be private (SELF_ONLY); pick another audience"
        )]
        : []
    }
  ],
  metrics: ["views", "likes", "comments", "shares"],
  livePost: (author, _placement, ids) => {
    const id = ids.digits(19)
    return { id, url: `https://www.tiktok.com/@${author}/video/${id}` }
  }
}
