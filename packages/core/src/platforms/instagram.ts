import { Schema } from "effect"
import { captionLength } from "./CaptionLength.js"
import {
  type Check,
  configurationSchema,
  list,
  mediaRules,
  optionField,
  type OptionSpec,
  type PlatformModule,
  refuse,
  text,
  textarea,
  toggle
} from "./PlatformModule.js"

/** Content Publishing: a caption of "up to 2200 characters"; a first comment is a comment, held to the same. */
const ceiling = 2200

/** An instagram handle as instagram spells them: letters, digits, dots and underscores. */
const handleChars = 30

export const PeopleTagHandle = Schema.String.pipe(
  Schema.pattern(new RegExp(`^@?[A-Za-z0-9._]{1,${handleChars}}$`), {
    message: () => `an instagram handle: 1 to ${handleChars} letters, digits, dots or underscores (a leading @ is allowed)`
  })
)

/** Instagram takes up to this many people tags on a photo. */
export const maxPeopleTags = 20

export const PeopleTags = Schema.Array(PeopleTagHandle).pipe(Schema.maxItems(maxPeopleTags))

/**
 * Branded content labels ride only the logins that carry them (Instagram Login does not: the
 * Content Publishing requirements); elsewhere the option is absent from GET /posting-rules and
 * refused at create naming the account.
 */
const brandedContent = <S extends Schema.Schema.AnyNoContext>(spec: OptionSpec<S>): OptionSpec<S> => ({
  ...spec,
  needs: "branded_content",
  refuse: (_value, target) =>
    instagram.routes[target.account.route].includes("branded_content")
      ? null
      : `branded content labels go only through the routes that carry them (Facebook Login); ${target.ref} is connected ${target.account.route}`
})

const options = {
  first_comment: textarea("Posted as the first comment.", {
    text: { max: ceiling, noun: "the first comment" },
    exceptPlacement: ["stories"],
    // Only through the aggregator routes (the contract).
    needs: "first_comment",
    refuse: (_comment, target) =>
      !target.can.first_comment
        ? `a first comment is available only on instagram accounts connected through the aggregator route; ${target.ref} is connected ${target.account.route}`
        : target.placement === "stories"
        ? "a story takes no first comment"
        : null
  }),
  is_paid_partnership: brandedContent(toggle("Labels the post as a paid partnership; set at publish, cannot be added later.")),
  branded_content_sponsors: brandedContent(list(Schema.Array(Schema.String), "Usernames of the sponsoring brands.", {
    items: { max: 2, refusal: (count, { max }) => `branded content names at most ${max} sponsors; this post names ${count}` }
  })),
  is_ai_generated: toggle("Labels the post as AI-generated; set at publish, cannot be added later.", {
    // Ayrshare's documented Instagram fields carry no AI label (docs/networks/aggregator.md).
    needs: "ai_label",
    refuse: (_labelled, target) =>
      instagram.routes[target.account.route].includes("ai_label")
        ? null
        : `the AI-generated label goes only through Instagram's own logins; ${target.ref} is connected ${target.account.route}`
  }),
  // Beyond the contract: Instagram's collaborators (ig-user/media), invited as co-authors.
  collaborators: list(Schema.Array(PeopleTagHandle), "Usernames invited as collaborators; each must accept before the post shows on their profile.", {
    items: { max: 3, refusal: (count, { max }) => `a post invites at most ${max} collaborators; this post names ${count}` },
    exceptPlacement: ["stories"]
  }),
  // Beyond the contract: a reel's cover_url, which Instagram prefers to the frame at thumbnail_timestamp_ms.
  cover_url: text("A public JPEG shown as a reel's cover (else the video's frame at thumbnail_timestamp_ms).", {
    text: { max: 2048, noun: "a cover URL", format: "url" }
  })
}

export const InstagramConfiguration = configurationSchema(options)

/** A cover is a reel's: placed in reels, or a single feed video (which Instagram publishes as a reel). */
const coverRules: Check = (target) => {
  const reel = target.placement === "reels" || target.placement === "timeline" && target.visual.length === 1 && target.visual[0]!.kind === "video"
  return target.draft.platformConfigurations.instagram?.cover_url === undefined || reel
    ? []
    : [refuse(optionField("instagram", "cover_url"), target.ref, "a cover goes only on a reel (one video, in the feed or in reels)")]
}

export const instagram: PlatformModule = {
  look: { name: "Instagram", color: "#c13584" },
  caption: { ceiling, length: captionLength.instagram, optional: true },
  media: mediaRules({
    // A carousel holds up to 10 images and videos (Content Publishing guide).
    max: 10,
    required: true,
    // Reels published through the API run 3 s to 15 min (and every feed video is a reel).
    videoSeconds: 900,
    mixes: true,
    carouselVideos: true,
    // Instagram shares every single feed video published through the API as a reel (since July 2023).
    singleVideoIsReel: true
  }),
  placements: ["reels", "stories", "timeline"],
  // People tags and reel music: only the aggregator's login variant; the AI label: Instagram's own logins.
  routes: {
    // Instagram Login carries no branded content; Facebook Login does (Content Publishing requirements).
    direct: ["ai_label"],
    facebook_login: ["branded_content", "ai_label"],
    // Ayrshare's documented Instagram fields carry no paid-partnership label (docs/networks/aggregator.md).
    aggregator: ["first_comment"],
    aggregator_login: ["first_comment", "people_tags", "reel_music"],
    simulator: ["first_comment", "people_tags", "reel_music", "branded_content", "ai_label"]
  },
  options,
  rules: [coverRules],
  metrics: ["views", "likes", "comments", "shares", "reach", "saves"],
  livePost: (author, placement, ids) => {
    const id = ids.code(11)
    return {
      id,
      url: placement === "stories"
        ? `https://www.instagram.com/stories/${author}/${ids.digits(19)}/`
        : placement === "reels"
        ? `https://www.instagram.com/reel/${id}/`
        : `https://www.instagram.com/p/${id}/`
    }
  }
}
