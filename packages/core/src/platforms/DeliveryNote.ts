import type { SocialAccount } from "../Account.js"
import type { DeliveryNote } from "../Delivery.js"
import type { Media } from "../Media.js"
import type { Placement, Platform } from "../Platform.js"
import type { MediaSplit } from "./PlatformModule.js"
import { placementOf, type PlatformConfiguration, platformRegistry } from "./Registry.js"

/**
 * Media the platform takes and leaves behind when it accepts the post whole but not every item.
 * These are the only cases where validation lets extra media through; everything else over a
 * limit is refused at create time (see PostValidation), so the receipt note is never a surprise.
 */
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
  return platformRegistry[platform].media.leavesBehind({ images, videos }) ?? { sent: media, left: [], reason: null }
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
  const rules = platformRegistry[account.platform].media
  const placement = placementOf(configuration)
  const split = splitMedia(account.platform, media, placement)
  const info: Array<string> = []
  if (placement === "reels" || (rules.singleVideoIsReel && placement === "timeline" && isSingleVideo(split.sent))) {
    info.push("posted as a reel")
  }
  if (placement === "stories") info.push("posted as a story")
  if (rules.altText && split.sent.some((item) => item.altText !== null)) {
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
