import { accountRef, type SocialAccount } from "./Account.js"
import type { Violation } from "./Errors.js"
import type { Media } from "./Media.js"
import type { Placement, Platform } from "./Platform.js"
import { splitMedia } from "./platforms/DeliveryNote.js"
import { type Check, type OptionSpec, optionField, refuse, type Target, type TextLimit } from "./platforms/PlatformModule.js"
import {
  accountCapabilities,
  captionCeiling,
  isPlatformKey,
  limitsFor,
  optionKeysFor,
  placementOf,
  type PlatformConfiguration,
  type PlatformConfigurations,
  platformRegistry,
  platformsWith
} from "./platforms/Registry.js"
import { appendSignature, signatureLength } from "./CaptionSignature.js"
import { quote } from "./Echo.js"

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
    if (target.visual.length === 0 && !platformRegistry[target.platform].media.required) {
      return [refuse(field, target.ref, "a story needs an image or a video")]
    }
    if (target.visual.length > 1) {
      return [refuse("media_ids", target.ref, `a story carries one image or video; this post has ${target.visual.length}`)]
    }
  }
  return []
}

const captionRules: Check = (target) => {
  const text = target.text
  if (text === null) {
    const { caption, media } = platformRegistry[target.platform]
    if (target.placement === "stories") return []
    if (!caption.optional) {
      return [refuse(
        "caption",
        target.ref,
        `${target.platform} requires a caption and the caption is shared by the whole post; write one, or give platform_configurations.${target.platform}.caption`
      )]
    }
    // Media without words is a post here; neither is nothing (x would publish an empty tweet).
    // Where media is required its own rule already says so.
    return media.required || target.visual.length + target.documents.length > 0
      ? []
      : [refuse(
        "caption",
        target.ref,
        `${target.platform} has nothing to print: this post carries no caption and no media; write a caption (or platform_configurations.${target.platform}.caption) or attach media`
      )]
  }
  const count = platformRegistry[target.platform].caption.length
  const length = count(text)
  const ceiling = captionCeiling[target.platform]
  if (length <= ceiling) return []
  const overridden = nonBlank(configurationOf(target.draft, target.platform)?.caption) !== null
  const signature = signatureLength(target.draft.signature, count)
  const unit = platformRegistry[target.platform].caption.unit ?? "characters"
  return [refuse(
    overridden ? optionField(target.platform, "caption") : "caption",
    target.ref,
    `${target.platform} prints at most ${ceiling} ${unit} and this caption prints ${length}` +
      (signature > 0 ? ` (the signature takes ${signature} of them)` : "") +
      `; shorten it by ${length - ceiling}`
  )]
}

const mediaRules: Check = (target) => {
  const { platform, ref, visual } = target
  const rules = platformRegistry[platform].media
  if (visual.length === 0) {
    return rules.required && target.documents.length === 0
      ? [refuse("media_ids", ref, `${platform} refuses a text-only post; attach an image or a video`)]
      : []
  }
  const violations: Array<Violation> = []
  const videos = visual.filter((item) => item.kind === "video")
  if (rules.videoOnly && videos.length === 0) {
    violations.push(refuse("media_ids", ref, `${platform} publishes a video and this post carries none`))
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
  if (sentVideos.length > 1 && !rules.carouselVideos) {
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
        target.account.report?.video_seconds == null
          ? `${platform} takes videos of up to ${maxSeconds} seconds; this one runs ${Math.ceil(video.durationSeconds)}`
          : `${ref} takes videos of up to ${maxSeconds} seconds (the limit ${platform} reports for this account); this one runs ${
            Math.ceil(video.durationSeconds)
          }`
      ))
    }
  }
  return violations
}

const documentTargetRules: Check = (target) => {
  if (target.documents.length === 0 || target.can.documents) return []
  const takers = platformsWith("documents")
  return target.documents.map((document) =>
    refuse(
      mediaField(target, document),
      target.ref,
      takers.includes(target.platform)
        ? `a document post needs a ${target.platform} connection that supports documents; ${target.ref} is connected ${target.account.route}`
        : `a document (PDF) post goes only to ${takers.join(" or ")} accounts; send it on its own to those`
    )
  )
}

/**
 * People tags ride the photo to accounts whose route advertises can.people_tags; sent anywhere
 * else they would be dropped without a word, so the post is refused instead.
 */
const peopleTagRules: Check = (target) => {
  if (target.can.people_tags) return []
  const printers = platformsWith("people_tags")
  return target.visual.filter((item) => item.peopleTags.length > 0).map((item) =>
    refuse(
      mediaField(target, item),
      target.ref,
      printers.includes(target.platform)
        ? `this photo carries people tags, which need an ${target.platform} connection that supports them; ${target.ref} is connected ${target.account.route}`
        : `this photo carries people tags, which only ${printers.join(" and ")} prints; upload it again without people_tags for ${target.platform}`
    )
  )
}

/** An http or https link with a dotted host and no spaces. */
const isWebLink = (link: string, max: number) =>
  link.length <= max && /^https?:\/\/[^\s/?#:@]+\.[^\s/?#:@]+(:\d{1,5})?([/?#]\S*)?$/i.test(link)

const textRules = (limit: TextLimit, text: string, field: string, target: Target): ReadonlyArray<Violation> => {
  if (limit.format === "url") {
    return isWebLink(text, limit.max)
      ? []
      : [refuse(field, target.ref, `${limit.noun} must be an http or https URL of at most ${limit.max} characters`)]
  }
  const count = platformRegistry[target.platform].caption.length
  if (limit.min === undefined) {
    const length = count(text)
    return length > limit.max
      ? [refuse(field, target.ref, `${limit.noun} takes at most ${limit.max} characters; this one has ${length}`)]
      : []
  }
  const length = count(text.trim())
  return length < limit.min || length > limit.max
    ? [refuse(field, target.ref, `${limit.noun} takes ${limit.min} to ${limit.max} characters; this one has ${length}`)]
    : []
}

/** The limits an option's spec sets on its value: the text's length, or a list's count and each entry's length. */
const limitRules = (option: OptionSpec, value: unknown, field: string, target: Target): ReadonlyArray<Violation> => {
  if (option.kind !== "list") {
    return typeof value === "string" && option.text !== null ? textRules(option.text, value, field, target) : []
  }
  const listField = option.itemsAt === null ? field : `${field}.${option.itemsAt}`
  const entries = (option.itemsAt === null ? value : (value as Record<string, unknown>)[option.itemsAt]) as ReadonlyArray<string>
  const violations: Array<Violation> = []
  const { items, text } = option
  if (items !== null && (entries.length > items.max || entries.length < (items.min ?? 0))) {
    violations.push(refuse(listField, target.ref, items.refusal(entries.length, items)))
  }
  if (text !== null) entries.forEach((entry, index) => violations.push(...textRules(text, entry, `${listField}[${index}]`, target)))
  return violations
}

/** A value the platform's report of the account forbids (AccountReport.options), as the refusal's message. */
const reportedRefusal = (target: Target, key: string, value: unknown): string | null => {
  const reported = target.account.report?.options[key]
  if (reported === undefined) return null
  if (reported.values !== undefined && !reported.values.includes(String(value))) {
    return `${target.ref} accepts ${key} ${reported.values.join(", ")} only: ${reported.reason}`
  }
  if (reported.fixed !== undefined && value !== reported.fixed) return `${target.ref} takes ${key} ${reported.fixed} only: ${reported.reason}`
  return null
}

/**
 * Each option the post sets, by its platform's spec and what the platform reported of the
 * account: a reason to refuse it outright, else its limits and its own further rules.
 */
const optionRules: Check = (target) => {
  const configuration: Readonly<Record<string, unknown>> = configurationOf(target.draft, target.platform) ?? {}
  return Object.entries(platformRegistry[target.platform].options).flatMap(([key, option]) => {
    const value = configuration[key]
    if (value === undefined) return []
    const field = optionField(target.platform, key)
    const refusal = option.refuse?.(value, target) ?? reportedRefusal(target, key, value)
    return refusal !== null
      ? [refuse(field, target.ref, refusal)]
      : [...limitRules(option, value, field, target), ...(option.check?.(value, target, field) ?? [])]
  })
}

const targetChecks: ReadonlyArray<Check> = [
  placementRules,
  surfaceRules,
  captionRules,
  mediaRules,
  documentTargetRules,
  peopleTagRules,
  optionRules
]

const toTarget = (draft: PostDraft, account: SocialAccount): Target => {
  const can = accountCapabilities(account)
  const asked = placementOf(configurationOf(draft, account.platform))
  const placement = asked === "timeline" || can.placements.includes(asked) ? asked : "timeline"
  return {
    draft,
    account,
    platform: account.platform,
    ref: accountRef(account, draft.projectAccounts ?? draft.accounts),
    can,
    limits: limitsFor(account, draft.signature),
    placement,
    visual: draft.media.filter((item) => item.kind !== "document"),
    documents: draft.media.filter((item) => item.kind === "document"),
    text: textOn(draft, account.platform, placement)
  }
}

/**
 * Keys of platform_configurations.<platform> the platform does not have at all, per target account.
 * (A key it has that this account's route cannot take is refused by that option's own rule.)
 */
export const unknownOptions = (draft: PostDraft): ReadonlyArray<Violation> =>
  draft.accounts.flatMap((account) => {
    const configuration: Readonly<Record<string, unknown>> = configurationOf(draft, account.platform) ?? {}
    const unknown = Object.keys(configuration).filter((key) => !isPlatformKey(account.platform, key))
    if (unknown.length === 0) return []
    const ref = accountRef(account, draft.projectAccounts ?? draft.accounts)
    const accepted = optionKeysFor(account.platform, accountCapabilities(account))
    return unknown.map((key) =>
      refuse(
        optionField(account.platform, key),
        ref,
        `${account.platform} has no option ${quote(key)}; ${ref} accepts ${accepted.join(", ")} (GET /posting-rules)`
      )
    )
  })

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
    return [...targetChecks, ...platformRegistry[account.platform].rules].flatMap((check) => check(target))
  })
]
