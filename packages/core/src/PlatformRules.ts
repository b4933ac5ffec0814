import type { AccountCapabilities, AccountLimits, ConnectionRoute, SocialAccount } from "./Account.js"
import type { DeliveryNote } from "./Delivery.js"
import type { Media } from "./Media.js"
import type { Placement, Platform } from "./Platform.js"
import type { PlatformConfigurations } from "./PlatformConfiguration.js"
import { signatureLength } from "./Signature.js"

/** One platform's entry of platform_configurations (undefined when the post sets none). */
export type PlatformConfiguration = PlatformConfigurations[keyof PlatformConfigurations]

/**
 * The longest text each platform prints, in characters (code points, see Signature.textLength).
 * - x 280: the contract's own figure.
 * - instagram 2200: Instagram Platform, Content Publishing (caption "up to 2200 characters").
 * - facebook 63206: the Page feed `message` limit Facebook engineering set (ZDNet, 2011) and that
 *   publishers still document (Ayrshare and Upload-Post "Facebook character limits").
 * - threads 500: Threads API, Posts, Limitations: "Text posts are limited to 500 characters."
 * - pinterest 500: the Pin `description` of Pinterest API v5 pins/create (title is 100, separate).
 * - tiktok 2200: Content Posting API, Direct Post: post_info.title (the video caption) "max 2200".
 * - youtube 5000: YouTube Data API, videos resource: snippet.description at most 5000 bytes; we
 *   count characters, so a description heavy in multi-byte characters can still be refused there.
 * - linkedin 3000: the Posts API commentary limit (LinkedIn Marketing docs, "3000 characters").
 * - bluesky 300: the app.bsky.feed.post lexicon, text maxGraphemes 300.
 */
export const captionCeiling: Record<Platform, number> = {
  x: 280,
  instagram: 2200,
  facebook: 63206,
  threads: 500,
  pinterest: 500,
  tiktok: 2200,
  youtube: 5000,
  linkedin: 3000,
  bluesky: 300
}

/**
 * Media items per post.
 * - x 4: POST /2/tweets media.media_ids maxItems 4 (four images, or one video or GIF).
 * - instagram 10: a carousel holds up to 10 images and videos (Content Publishing guide).
 * - facebook 10: multi-photo Page posts; Herald sends up to 10 attached photos.
 * - threads 20: Threads carousel posts take up to 20 images and videos.
 * - pinterest 5: a carousel Pin holds 2 to 5 images.
 * - tiktok 35: Content Posting API photo posts, photo_images up to 35.
 * - youtube 1: one video per upload (videos.insert).
 * - linkedin 20: a MultiImage post holds up to 20 images (one video or one document alone).
 * - bluesky 4: app.bsky.embed.images maxLength 4.
 */
const maxMedia: Record<Platform, number> = {
  x: 4,
  instagram: 10,
  facebook: 10,
  threads: 20,
  pinterest: 5,
  tiktok: 35,
  youtube: 1,
  linkedin: 20,
  bluesky: 4
}

/**
 * The longest video each platform takes through its API, in seconds.
 * - x 140: X media upload, video duration 0.5 to 140 seconds.
 * - instagram 900: reels published through the API run 3 s to 15 min (and every feed video is a reel).
 * - facebook 14400: Page videos up to 240 minutes.
 * - threads 300: Threads API media specifications, video up to 5 minutes.
 * - pinterest 900: video Pins 4 s to 15 min.
 * - tiktok 600: Content Posting API, 10 minutes (the creator's max_video_post_duration_sec may be lower).
 * - youtube 43200: 12 hours for verified channels (unverified channels stop at 15 min at YouTube).
 * - linkedin 1800: LinkedIn Videos API, 3 seconds to 30 minutes.
 * - bluesky 180: Bluesky video posts up to 3 minutes.
 */
const videoSeconds: Record<Platform, number> = {
  x: 140,
  instagram: 900,
  facebook: 14400,
  threads: 300,
  pinterest: 900,
  tiktok: 600,
  youtube: 43200,
  linkedin: 1800,
  bluesky: 180
}

/** The contract: instagram, tiktok, youtube and pinterest refuse a text-only post. */
export const mediaRequired = (platform: Platform): boolean =>
  platform === "instagram" || platform === "tiktok" || platform === "youtube" || platform === "pinterest"

/** The contract: x, instagram and linkedin publish media without words; the others need a caption. */
export const captionOptional = (platform: Platform): boolean =>
  platform === "x" || platform === "instagram" || platform === "linkedin"

/**
 * Surfaces beyond the feed. instagram and facebook publish reels and stories through their APIs;
 * threads takes reels (a video post) and timeline (its default feed) but has no stories.
 */
const platformPlacements: Record<Platform, ReadonlyArray<Placement>> = {
  x: [],
  instagram: ["reels", "stories", "timeline"],
  facebook: ["reels", "stories", "timeline"],
  threads: ["reels", "timeline"],
  pinterest: [],
  tiktok: [],
  youtube: [],
  linkedin: [],
  bluesky: []
}

/**
 * Whether one post may carry images and a video together. Carousels of instagram and threads mix
 * them; facebook will not through an app (contract); the others take images or one video.
 */
const mixesMedia: Record<Platform, boolean> = {
  x: false,
  instagram: true,
  facebook: false,
  threads: true,
  pinterest: false,
  tiktok: false,
  youtube: false,
  linkedin: false,
  bluesky: false
}

const aggregatorRoute = (route: ConnectionRoute): boolean => route === "aggregator" || route === "aggregator_login"

/**
 * What a connection route can do on its platform. The simulator has every capability of the
 * platform. Route facts:
 * - instagram first_comment: only through the aggregator routes (the contract).
 * - instagram people_tags and reel_music: only the aggregator's login variant.
 * - x first_comment: a reply under the tweet, possible on every route.
 * - linkedin documents: the Documents API belongs to LinkedIn's Community Management product,
 *   which a direct "Share on LinkedIn" connection does not have; aggregators hold it.
 */
export const capabilitiesFor = (platform: Platform, route: ConnectionRoute): AccountCapabilities => {
  const simulator = route === "simulator"
  return {
    placements: platformPlacements[platform],
    first_comment: platform === "x" || (platform === "instagram" && (simulator || aggregatorRoute(route))),
    people_tags: platform === "instagram" && (simulator || route === "aggregator_login"),
    reel_music: (platform === "instagram" && (simulator || route === "aggregator_login")) ||
      (platform === "facebook" && simulator),
    documents: platform === "linkedin" && route !== "direct",
    mixed_media: mixesMedia[platform]
  }
}

export const limitsFor = (account: SocialAccount, signature: string): AccountLimits => ({
  caption_chars: captionCeiling[account.platform],
  caption_chars_available: Math.max(captionCeiling[account.platform] - signatureLength(signature), 0),
  max_media: maxMedia[account.platform],
  media_required: mediaRequired(account.platform),
  video_seconds: videoSeconds[account.platform]
})

/** The placement the post asks of this platform (timeline when none is named). */
export const placementOf = (configuration: PlatformConfiguration): Placement =>
  configuration?.placement ?? "timeline"

/**
 * Media the platform takes and leaves behind when it accepts the post whole but not every item.
 * These are the only cases where validation lets extra media through; everything else over a
 * limit is refused at create time (see PostValidation), so the receipt note is never a surprise.
 */
export interface MediaSplit {
  readonly sent: ReadonlyArray<Media>
  readonly left: ReadonlyArray<Media>
  readonly reason: string | null
}

export const splitMedia = (platform: Platform, media: ReadonlyArray<Media>, placement: Placement): MediaSplit => {
  const videos = media.filter((item) => item.kind === "video")
  const images = media.filter((item) => item.kind === "image")
  if (placement === "reels" && media.length > 1 && videos.length > 0) {
    const clip = videos[0]!
    return {
      sent: [clip],
      left: media.filter((item) => item !== clip),
      reason: "a reel is one clip"
    }
  }
  if (platform === "facebook" && videos.length === 1 && images.length > 0) {
    return {
      sent: videos,
      left: images,
      reason: "facebook does not post photos and a video together through an app; the video went"
    }
  }
  if (platform === "x" && videos.length === 0 && images.length > maxMedia.x) {
    return {
      sent: images.slice(0, maxMedia.x),
      left: images.slice(maxMedia.x),
      reason: `x takes ${maxMedia.x} images`
    }
  }
  return { sent: media, left: [], reason: null }
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`

/**
 * What the receipt says beyond "published". kind null: something attached was left behind.
 * kind "info": the post went out whole and the note only says how.
 */
export const deliveryNote = (
  account: SocialAccount,
  media: ReadonlyArray<Media>,
  configuration: PlatformConfiguration
): DeliveryNote | null => {
  const placement = placementOf(configuration)
  const split = splitMedia(account.platform, media, placement)
  const info: Array<string> = []
  if (placement === "reels" || (account.platform === "instagram" && placement === "timeline" && isSingleVideo(split.sent))) {
    // Instagram shares every single feed video published through the API as a reel (since July 2023).
    info.push("posted as a reel")
  }
  if (placement === "stories") info.push("posted as a story")
  if ((account.platform === "x" || account.platform === "bluesky") && split.sent.some((item) => item.altText !== null)) {
    info.push("alt text applied")
  }
  if (split.left.length > 0) {
    return {
      text: [`${split.reason}: ${plural(split.left.length, "media item")} left behind`, ...info].join("; "),
      kind: null
    }
  }
  return info.length > 0 ? { text: info.join("; "), kind: "info" } : null
}

const isSingleVideo = (media: ReadonlyArray<Media>) => media.length === 1 && media[0]!.kind === "video"
