/**
 * The container parameters of one delivery (POST /{ig-user-id}/media, Content Publishing guide and
 * the ig-user/media reference): the container's kind from the media and the placement, the
 * caption, and each Instagram option as Instagram's own field.
 */
import { type InstagramConfiguration, type Media, type Placement, type PublishRequest, splitMedia } from "@herald/core"

type Configuration = typeof InstagramConfiguration.Type

export const configurationOf = (request: PublishRequest) => (request.configuration ?? {}) as Configuration

export const placementOf = (request: PublishRequest): Placement => configurationOf(request).placement ?? "timeline"

/** The delivery as Instagram takes it: a reel is its first video, the rest left behind (the receipt's note says so). */
export const asSent = (request: PublishRequest): PublishRequest => ({ ...request, media: splitMedia("instagram", request.media, placementOf(request)).sent })

/** What the post becomes on Instagram, as media_product_type reads back (a carousel is FEED). */
export type ProductType = "FEED" | "REELS" | "STORY"

export const productTypeOf = (request: PublishRequest): ProductType => {
  const placement = placementOf(request)
  if (placement === "stories") return "STORY"
  // Every single feed video published through the API is a reel (since November 2023).
  return request.media.length === 1 && request.media[0]!.kind === "video" ? "REELS" : "FEED"
}

const compact = (fields: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined))

/**
 * The fields the options set on the post's own container (a carousel's parent, never its items:
 * Instagram refuses is_ai_generated on a child). `sponsorIds` are the branded content sponsors'
 * Instagram user ids, resolved from their usernames.
 */
export const optionFields = (request: PublishRequest, sponsorIds: ReadonlyArray<string>): Record<string, string> => {
  const configuration = configurationOf(request)
  const story = placementOf(request) === "stories"
  const collaborators = configuration.collaborators?.map((name) => name.replace(/^@/, ""))
  return compact({
    caption: story || request.text === null ? undefined : request.text,
    collaborators: story || collaborators === undefined || collaborators.length === 0 ? undefined : JSON.stringify(collaborators),
    is_ai_generated: configuration.is_ai_generated === true ? "true" : undefined,
    is_paid_partnership: configuration.is_paid_partnership === true ? "true" : undefined,
    branded_content_sponsor_ids: sponsorIds.length === 0 ? undefined : JSON.stringify(sponsorIds)
  })
}

/** A single item's own fields, as the post itself (image, reel or story). */
export const singleFields = (request: PublishRequest, media: Media, url: string): Record<string, string> => {
  const configuration = configurationOf(request)
  const source: Record<string, string> = { [media.kind === "video" ? "video_url" : "image_url"]: url }
  switch (productTypeOf(request)) {
    case "STORY":
      return { media_type: "STORIES", ...source }
    case "REELS":
      return compact({
        media_type: "REELS",
        ...source,
        // A reel also shows in the feed unless it was asked for the Reels tab alone.
        share_to_feed: placementOf(request) === "reels" ? "false" : "true",
        cover_url: configuration.cover_url,
        thumb_offset: media.thumbnailTimestampMs === null ? undefined : String(media.thumbnailTimestampMs)
      })
    case "FEED":
      return compact({ ...source, alt_text: media.altText ?? undefined })
  }
}

/** A carousel item's fields: an image with its alt text, or a video. */
export const carouselItemFields = (media: Media, url: string): Record<string, string> =>
  media.kind === "video"
    ? { is_carousel_item: "true", media_type: "VIDEO", video_url: url }
    : compact({ is_carousel_item: "true", image_url: url, alt_text: media.altText ?? undefined })

/**
 * The post's permalink; without one (the read failed after the post went out), the profile: a
 * permalink is built from a shortcode Herald does not have, never from the media id.
 */
export const postUrl = (username: string, permalink: string | undefined) => permalink ?? `https://www.instagram.com/${username}/`
