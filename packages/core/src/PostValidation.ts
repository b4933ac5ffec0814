import { accountRef, type AccountCapabilities, type AccountLimits, type SocialAccount } from "./Account.js"
import type { Violation } from "./Errors.js"
import type { Media } from "./Media.js"
import type { Placement, Platform } from "./Platform.js"
import type { PlatformConfigurations } from "./PlatformConfiguration.js"
import {
  captionCeiling,
  captionOptional,
  capabilitiesFor,
  limitsFor,
  mediaRequired,
  type PlatformConfiguration,
  placementOf,
  splitMedia
} from "./PlatformRules.js"
import { appendSignature, signatureLength, textLength } from "./Signature.js"

/** A create or edit as the use case has resolved it, ready to be judged as a whole. */
export interface PostDraft {
  /** As the caller wrote it, without the signature. */
  readonly caption: string | null
  /** "" when skip_signature or the project has none. */
  readonly signature: string
  /** The resolved targets. */
  readonly accounts: ReadonlyArray<SocialAccount>
  /** The resolved media, in carousel order. */
  readonly media: ReadonlyArray<Media>
  readonly platformConfigurations: PlatformConfigurations
  /**
   * Every account of the project, so that a target whose username is duplicated on its platform
   * is named by its id, as GET /social-accounts names it. Defaults to the targets.
   */
  readonly projectAccounts?: ReadonlyArray<SocialAccount>
}

const nonBlank = (text: string | null | undefined): string | null =>
  text === null || text === undefined || text.trim() === "" ? null : text

const configurationOf = (draft: PostDraft, platform: Platform): PlatformConfiguration =>
  draft.platformConfigurations[platform]

/**
 * The text an account prints: its platform's caption override, else the caption, with the
 * signature appended. null when nothing prints: no words at all (the signature is a footer to a
 * caption, never a caption of its own), or a story, which prints no caption.
 */
export const printedText = (draft: PostDraft, account: SocialAccount): string | null =>
  textOn(draft, account.platform, placementOf(configurationOf(draft, account.platform)))

const textOn = (draft: PostDraft, platform: Platform, placement: Placement): string | null => {
  if (placement === "stories") return null
  const text = nonBlank(configurationOf(draft, platform)?.caption) ?? nonBlank(draft.caption)
  return text === null ? null : appendSignature(text, draft.signature)
}

/** Everything one target's checks need, computed once. */
interface Target {
  readonly draft: PostDraft
  readonly account: SocialAccount
  readonly platform: Platform
  readonly ref: string
  readonly can: AccountCapabilities
  readonly limits: AccountLimits
  /** The placement asked for, or timeline when that one is refused (so the rest still gets checked). */
  readonly placement: Placement
  /** Images and videos; a document is judged on its own rules. */
  readonly visual: ReadonlyArray<Media>
  readonly documents: ReadonlyArray<Media>
}

type Check = (target: Target) => ReadonlyArray<Violation>

const refuse = (field: string, account: string | null, message: string): Violation => ({ field, account, message })

const optionField = (platform: Platform, key: string) => `platform_configurations.${platform}.${key}`

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`

const mediaField = (target: Target, item: Media) => `media_ids[${target.draft.media.indexOf(item)}]`

const placementRules: Check = (target) => {
  const asked = configurationOf(target.draft, target.platform)?.placement
  if (asked === undefined || target.can.placements.includes(asked)) return []
  return [refuse(
    optionField(target.platform, "placement"),
    target.ref,
    target.can.placements.length === 0
      ? `${target.platform} takes no placement; leave it out`
      : `${target.platform} accepts placement ${target.can.placements.join(", ")}, not ${asked}`
  )]
}

const surfaceRules: Check = (target) => {
  const field = optionField(target.platform, "placement")
  if (target.placement === "reels" && !target.visual.some((item) => item.kind === "video")) {
    return [refuse(field, target.ref, "a reel needs a video and this post carries none")]
  }
  if (target.placement === "stories") {
    // media-required platforms already refuse a text-only post; one message is enough.
    if (target.visual.length === 0 && !mediaRequired(target.platform)) {
      return [refuse(field, target.ref, "a story needs an image or a video")]
    }
    if (target.visual.length > 1) {
      return [refuse("media_ids", target.ref, `a story carries one image or video; this post has ${target.visual.length}`)]
    }
  }
  return []
}

const captionRules: Check = (target) => {
  const text = textOn(target.draft, target.platform, target.placement)
  if (text === null) {
    return target.placement === "stories" || captionOptional(target.platform)
      ? []
      : [refuse(
        "caption",
        target.ref,
        `${target.platform} requires a caption and the caption is shared by the whole post; write one, or give platform_configurations.${target.platform}.caption`
      )]
  }
  const length = textLength(text)
  const ceiling = captionCeiling[target.platform]
  if (length <= ceiling) return []
  const overridden = nonBlank(configurationOf(target.draft, target.platform)?.caption) !== null
  const signature = signatureLength(target.draft.signature)
  return [refuse(
    overridden ? optionField(target.platform, "caption") : "caption",
    target.ref,
    `${target.platform} prints at most ${ceiling} characters and this caption prints ${length}` +
      (signature > 0 ? ` (the signature takes ${signature} of them)` : "") +
      `; shorten it by ${length - ceiling}`
  )]
}

/** Platforms whose carousel takes several videos; elsewhere a post carries at most one. */
const carouselsTakeVideos = (platform: Platform) => platform === "instagram" || platform === "threads"

const mediaRules: Check = (target) => {
  const { platform, ref, visual } = target
  if (visual.length === 0) {
    return mediaRequired(platform) && target.documents.length === 0
      ? [refuse("media_ids", ref, `${platform} refuses a text-only post; attach an image or a video`)]
      : []
  }
  const violations: Array<Violation> = []
  const videos = visual.filter((item) => item.kind === "video")
  if (platform === "youtube" && videos.length === 0) {
    violations.push(refuse("media_ids", ref, "youtube publishes a video and this post carries none"))
  }
  // What the platform will take: extras it documentedly leaves behind are a receipt note, not a refusal.
  const sent = splitMedia(platform, visual, target.placement).sent
  if (sent.length > target.limits.max_media) {
    violations.push(refuse(
      "media_ids",
      ref,
      `${platform} takes at most ${plural(target.limits.max_media, "media item")} per post; this post has ${sent.length}`
    ))
  }
  const sentVideos = sent.filter((item) => item.kind === "video")
  if (sentVideos.length > 1 && !carouselsTakeVideos(platform)) {
    violations.push(refuse("media_ids", ref, `${platform} takes one video per post; this post has ${sentVideos.length}`))
  }
  if (!target.can.mixed_media && sentVideos.length > 0 && sent.some((item) => item.kind === "image")) {
    violations.push(refuse("media_ids", ref, `${platform} does not take images and a video in one post`))
  }
  const maxSeconds = target.limits.video_seconds
  for (const video of sentVideos) {
    if (maxSeconds !== null && video.durationSeconds !== null && video.durationSeconds > maxSeconds) {
      violations.push(refuse(
        mediaField(target, video),
        ref,
        `${platform} takes videos of up to ${maxSeconds} seconds; this one runs ${Math.ceil(video.durationSeconds)}`
      ))
    }
  }
  return violations
}

const documentTargetRules: Check = (target) =>
  target.documents.length > 0 && !(target.platform === "linkedin" && target.can.documents)
    ? target.documents.map((document) =>
      refuse(
        mediaField(target, document),
        target.ref,
        target.platform === "linkedin"
          ? `a document post needs a linkedin connection that supports documents; ${target.ref} is connected ${target.account.route}`
          : "a document (PDF) post goes only to linkedin accounts; send it on its own to those"
      )
    )
    : []

/**
 * People tags ride the photo to instagram accounts whose route advertises can.people_tags; sent
 * anywhere else they would be dropped without a word, so the post is refused instead.
 */
const peopleTagRules: Check = (target) =>
  target.platform === "instagram" && target.can.people_tags
    ? []
    : target.visual.filter((item) => item.peopleTags.length > 0).map((item) =>
      refuse(
        mediaField(target, item),
        target.ref,
        target.platform === "instagram"
          ? `this photo carries people tags, which need an instagram connection that supports them; ${target.ref} is connected ${target.account.route}`
          : `this photo carries people tags, which only instagram prints; upload it again without people_tags for ${target.platform}`
      )
    )

const maxLength = (field: string, ref: string, text: string | undefined, max: number, what: string): Array<Violation> =>
  text !== undefined && textLength(text) > max
    ? [refuse(field, ref, `${what} takes at most ${max} characters; this one has ${textLength(text)}`)]
    : []

const xRules: Check = (target) => {
  const configuration = target.draft.platformConfigurations.x
  if (configuration === undefined) return []
  const { ref } = target
  const field = (key: string) => optionField("x", key)
  const violations = maxLength(field("first_comment"), ref, configuration.first_comment, captionCeiling.x, "the first comment")
  const thread = configuration.thread ?? []
  if (thread.length > 4) {
    violations.push(refuse(field("thread"), ref, `a thread takes up to 4 follow-up tweets; this one has ${thread.length}`))
  }
  thread.forEach((tweet, index) => {
    // The signature rides the main tweet only: follow-ups are counted as written.
    if (nonBlank(tweet) === null) violations.push(refuse(field(`thread[${index}]`), ref, "a follow-up tweet cannot be empty"))
    violations.push(...maxLength(field(`thread[${index}]`), ref, tweet, captionCeiling.x, "a follow-up tweet"))
  })
  const poll = configuration.poll
  if (poll !== undefined) {
    if (poll.options.length < 2 || poll.options.length > 4) {
      violations.push(refuse(field("poll.options"), ref, `a poll takes 2 to 4 options; this one has ${poll.options.length}`))
    }
    poll.options.forEach((option, index) => {
      const length = textLength(option.trim())
      if (length === 0 || length > 25) {
        violations.push(refuse(field(`poll.options[${index}]`), ref, `a poll option takes 1 to 25 characters; this one has ${length}`))
      }
    })
    const minutes = poll.duration_minutes
    if (minutes !== undefined && (minutes < 5 || minutes > 10080)) {
      violations.push(refuse(field("poll.duration_minutes"), ref, `a poll runs 5 to 10080 minutes (7 days); ${minutes} is outside`))
    }
    if (target.draft.media.length > 0) {
      violations.push(refuse(field("poll"), ref, "x does not attach a poll to a tweet with media"))
    }
  }
  return violations
}

const instagramRules: Check = (target) => {
  const configuration = target.draft.platformConfigurations.instagram
  if (configuration === undefined) return []
  const { ref } = target
  const violations: Array<Violation> = []
  if (configuration.first_comment !== undefined) {
    const field = optionField("instagram", "first_comment")
    if (!target.can.first_comment) {
      violations.push(refuse(
        field,
        ref,
        `a first comment is available only on instagram accounts connected through the aggregator route; ${ref} is connected ${target.account.route}`
      ))
    } else if (target.placement === "stories") {
      violations.push(refuse(field, ref, "a story takes no first comment"))
    } else {
      violations.push(...maxLength(field, ref, configuration.first_comment, 2200, "the first comment"))
    }
  }
  const sponsors = configuration.branded_content_sponsors ?? []
  if (sponsors.length > 2) {
    violations.push(refuse(
      optionField("instagram", "branded_content_sponsors"),
      ref,
      `branded content names at most 2 sponsors; this post names ${sponsors.length}`
    ))
  }
  return violations
}

const threadsPollKeys = ["poll_option_a", "poll_option_b", "poll_option_c", "poll_option_d"] as const

const threadsRules: Check = (target) => {
  const configuration = target.draft.platformConfigurations.threads
  if (configuration === undefined) return []
  const { ref } = target
  const field = (key: string) => optionField("threads", key)
  const hasMedia = target.draft.media.length > 0
  const violations: Array<Violation> = []
  const given = threadsPollKeys.map((key) => configuration[key] !== undefined)
  const isPoll = given.some(Boolean)
  if (isPoll) {
    // Options fill from a in order, so a..b is the smallest poll and no letter is skipped.
    threadsPollKeys.forEach((key, index) => {
      const option = configuration[key]
      if (option === undefined) {
        if (index < 2 || given.slice(index + 1).some(Boolean)) {
          violations.push(refuse(field(key), ref, `a poll fills its options in order from poll_option_a and needs at least two; ${key} is missing`))
        }
        return
      }
      const length = textLength(option.trim())
      if (length === 0 || length > 25) {
        violations.push(refuse(field(key), ref, `a poll option takes 1 to 25 characters; this one has ${length}`))
      }
    })
    if (hasMedia) violations.push(refuse(field("poll_option_a"), ref, "a poll rides only a post with no media"))
  }
  if (configuration.gif_id !== undefined) {
    if (hasMedia) violations.push(refuse(field("gif_id"), ref, "a GIF rides only a post with no media"))
    if (isPoll) violations.push(refuse(field("gif_id"), ref, "a post carries a GIF or a poll, not both"))
  }
  const tag = configuration.topic_tag
  if (tag !== undefined) {
    // Threads: a topic tag is 1 to 50 characters, without periods or ampersands.
    const problem = tag.includes("#")
      ? "is written without #"
      : /\s/.test(tag) || tag === ""
      ? "is one word"
      : /[.&]/.test(tag)
      ? "cannot contain periods or ampersands"
      : textLength(tag) > 50
      ? "takes at most 50 characters"
      : null
    if (problem !== null) violations.push(refuse(field("topic_tag"), ref, `a topic tag ${problem}`))
  }
  return violations
}

/** A link a pin can open: http or https, a dotted host, no spaces, at most 2048 characters. */
const isWebLink = (link: string) =>
  link.length <= 2048 && /^https?:\/\/[^\s/?#:@]+\.[^\s/?#:@]+(:\d{1,5})?([/?#]\S*)?$/i.test(link)

const pinterestRules: Check = (target) => {
  const configuration = target.draft.platformConfigurations.pinterest
  if (configuration === undefined) return []
  const { ref } = target
  const violations = maxLength(optionField("pinterest", "title"), ref, configuration.title, 100, "a pin title")
  if (configuration.link !== undefined && !isWebLink(configuration.link)) {
    violations.push(refuse(optionField("pinterest", "link"), ref, "the link must be an http or https URL of at most 2048 characters"))
  }
  ;(configuration.board_ids ?? []).forEach((board, index) => {
    if (board.trim() === "") violations.push(refuse(optionField("pinterest", `board_ids[${index}]`), ref, "a board id cannot be empty"))
  })
  return violations
}

const linkedinRules: Check = (target) => {
  const title = target.draft.platformConfigurations.linkedin?.document_title
  if (title === undefined) return []
  const field = optionField("linkedin", "document_title")
  return target.documents.length === 0
    ? [refuse(field, target.ref, "document_title names a document post and this post carries no document")]
    : maxLength(field, target.ref, title, 400, "a document title")
}

const tiktokRules: Check = (target) => {
  const configuration = target.draft.platformConfigurations.tiktok
  // TikTok's content sharing guidelines: branded content (a paid partnership) cannot be private.
  // Promoting one's own business (is_organic_brand_content) carries no such rule.
  return configuration?.is_brand_content === true && configuration.privacy_status === "SELF_ONLY"
    ? [refuse(optionField("tiktok", "privacy_status"), target.ref, "tiktok does not let branded content be private (SELF_ONLY); pick another audience")]
    : []
}

const platformRules: Record<Platform, ReadonlyArray<Check>> = {
  x: [xRules],
  instagram: [instagramRules],
  facebook: [],
  threads: [threadsRules],
  pinterest: [pinterestRules],
  tiktok: [tiktokRules],
  youtube: [],
  linkedin: [linkedinRules],
  bluesky: []
}

const targetChecks: ReadonlyArray<Check> = [
  placementRules,
  surfaceRules,
  captionRules,
  mediaRules,
  documentTargetRules,
  peopleTagRules
]

const toTarget = (draft: PostDraft, account: SocialAccount): Target => {
  const can = capabilitiesFor(account.platform, account.route)
  const asked = placementOf(configurationOf(draft, account.platform))
  return {
    draft,
    account,
    platform: account.platform,
    ref: accountRef(account, draft.projectAccounts ?? draft.accounts),
    can,
    limits: limitsFor(account, draft.signature),
    placement: asked === "timeline" || can.placements.includes(asked) ? asked : "timeline",
    visual: draft.media.filter((item) => item.kind !== "document"),
    documents: draft.media.filter((item) => item.kind === "document")
  }
}

/** A configuration no target reads would be dropped without a word: refuse it instead. */
const unusedConfigurations = (draft: PostDraft): ReadonlyArray<Violation> =>
  Object.entries(draft.platformConfigurations)
    .filter(([platform, configuration]) =>
      configuration !== undefined && !draft.accounts.some((account) => account.platform === platform)
    )
    .map(([platform]) => refuse(`platform_configurations.${platform}`, null, `no target account on ${platform}`))

/** A document post is one PDF on its own. */
const documentPostRules = (draft: PostDraft): ReadonlyArray<Violation> => {
  const documents = draft.media.filter((item) => item.kind === "document").length
  if (documents === 0) return []
  const violations: Array<Violation> = []
  if (documents > 1) violations.push(refuse("media_ids", null, `a post carries one document; this one has ${documents}`))
  if (documents < draft.media.length) {
    violations.push(refuse("media_ids", null, "a document is attached on its own, without images or videos"))
  }
  return violations
}

/** Every reason the post cannot go out as asked, all at once, each naming its field and target. */
export const validateDraft = (draft: PostDraft): ReadonlyArray<Violation> => [
  ...unusedConfigurations(draft),
  ...documentPostRules(draft),
  ...draft.accounts.flatMap((account) => {
    const target = toTarget(draft, account)
    return [...targetChecks, ...platformRules[account.platform]].flatMap((check) => check(target))
  })
]
