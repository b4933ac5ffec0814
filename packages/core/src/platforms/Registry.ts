import { Schema } from "effect"
import type { AccountCapabilities, AccountLimits, ConnectionRoute, SocialAccount } from "../Account.js"
import { type Placement, type Platform, platforms } from "../Platform.js"
import { signatureLength } from "../CaptionSignature.js"
import { expectedObject } from "../Echo.js"
import { bluesky, BlueskyConfiguration } from "./bluesky.js"
import { facebook, FacebookConfiguration } from "./facebook.js"
import { instagram, InstagramConfiguration } from "./instagram.js"
import { linkedin, LinkedinConfiguration } from "./linkedin.js"
import { pinterest, PinterestConfiguration } from "./pinterest.js"
import type { PlatformModule, RouteCapability } from "./PlatformModule.js"
import { threads, ThreadsConfiguration } from "./threads.js"
import { tiktok, TiktokConfiguration } from "./tiktok.js"
import { x, XConfiguration } from "./x.js"
import { youtube, YoutubeConfiguration } from "./youtube.js"

/** Every platform's module, keyed by platform: the one place Herald's platform facts are read from. */
export const platformRegistry: { readonly [P in Platform]: PlatformModule } = {
  x,
  instagram,
  facebook,
  threads,
  pinterest,
  tiktok,
  youtube,
  linkedin,
  bluesky
}

/** platform_configurations, keyed by platform, each entry its module's schema. */
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
}).annotations({ message: expectedObject("an object keyed by platform") })
export type PlatformConfigurations = typeof PlatformConfigurations.Type

/** One platform's entry of platform_configurations (undefined when the post sets none). */
export type PlatformConfiguration = PlatformConfigurations[keyof PlatformConfigurations]

/** The longest text each platform prints, as its module counts it. */
export const captionCeiling: { readonly [P in Platform]: number } = Object.fromEntries(
  platforms.map((platform) => [platform, platformRegistry[platform].caption.ceiling])
) as { readonly [P in Platform]: number }

/** The platforms where some route has this capability (instagram for people tags, linkedin for documents). */
export const platformsWith = (capability: RouteCapability): ReadonlyArray<Platform> =>
  platforms.filter((platform) => Object.values(platformRegistry[platform].routes).some((can) => can.includes(capability)))

/** What a connection route can do on its platform; the simulator route has every capability of its platform. */
export const capabilitiesFor = (platform: Platform, route: ConnectionRoute): AccountCapabilities => {
  const module = platformRegistry[platform]
  const can = module.routes[route]
  return {
    placements: module.placements,
    first_comment: can.includes("first_comment"),
    people_tags: can.includes("people_tags"),
    reel_music: can.includes("reel_music"),
    documents: can.includes("documents"),
    mixed_media: module.media.mixes,
    public_posts: true
  }
}

/** What this account can do: its route's capabilities, narrowed by what the platform reported of it. */
export const accountCapabilities = (account: SocialAccount): AccountCapabilities => ({
  ...capabilitiesFor(account.platform, account.route),
  public_posts: account.report?.public_posts ?? true
})

/** The keys every platform's configuration has beside its own options. */
export const commonOptionKeys = ["caption", "placement"] as const

/**
 * The platform_configurations keys an account on this route accepts, in the order GET
 * /posting-rules lists them: caption; placement where the platform has surfaces beyond the feed;
 * then the platform's options this route can honour. GET /posting-rules lists exactly these, and
 * validation refuses any other key (PostValidation's unknownOptions and the options' own rules).
 */
export const optionKeysFor = (platform: Platform, route: ConnectionRoute): ReadonlyArray<string> => [
  "caption",
  ...(platformRegistry[platform].placements.length > 0 ? ["placement"] : []),
  ...Object.entries(platformRegistry[platform].options)
    .filter(([, spec]) => spec.needs === null || routeCan(platform, route, spec.needs))
    .map(([key]) => key)
]

/** Whether the route has the capability on the platform (GET /social-accounts' can shows those it names). */
export const routeCan = (platform: Platform, route: ConnectionRoute, capability: RouteCapability): boolean =>
  platformRegistry[platform].routes[route].includes(capability)

/** A key the platform has at all, on some route (caption and placement are everyone's). */
export const isPlatformKey = (platform: Platform, key: string): boolean =>
  (commonOptionKeys as ReadonlyArray<string>).includes(key) || Object.hasOwn(platformRegistry[platform].options, key)

export const limitsFor = (account: SocialAccount, signature: string): AccountLimits => {
  const { caption, media } = platformRegistry[account.platform]
  return {
    caption_chars: caption.ceiling,
    caption_chars_available: Math.max(caption.ceiling - signatureLength(signature, caption.length), 0),
    max_media: media.max,
    media_required: media.required,
    video_seconds: account.report?.video_seconds ?? media.videoSeconds
  }
}

/** The placement the post asks of this platform (timeline when none is named). */
export const placementOf = (configuration: PlatformConfiguration): Placement => configuration?.placement ?? "timeline"
