/**
 * The app.bsky.feed.post record Herald writes, and the at-uri and public URL of a written one.
 * Lexicons: app.bsky.feed.post, app.bsky.embed.images / video / external.
 */
import type { Media } from "@herald/core"
import type { Facet } from "./RichText.js"

export const postCollection = "app.bsky.feed.post"

/**
 * The record field carrying Herald's marker (the delivery id), so an unknown outcome can be
 * matched to the post later. atproto records keep fields their lexicon does not name; the name
 * is namespaced so no future lexicon field can collide with it.
 */
export const markerField = "dev.herald.marker"

/** A blob as uploadBlob returns it ({ $type: "blob", ref, mimeType, size }), passed on untouched. */
export type BlobRef = unknown

export interface UploadedMedia {
  readonly media: Media
  readonly blob: BlobRef
}

const aspectRatioOf = (media: Media) =>
  media.width !== null && media.height !== null && media.width > 0 && media.height > 0
    ? { aspectRatio: { width: media.width, height: media.height } }
    : {}

export interface LinkCard {
  readonly uri: string
  readonly title: string
  readonly description: string
  readonly thumb?: BlobRef
}

/** The embed of the post: its images, its video, or else a card for its first link. */
export const embedOf = (uploaded: ReadonlyArray<UploadedMedia>, card: LinkCard | null): Record<string, unknown> | null => {
  const video = uploaded.find((item) => item.media.kind === "video")
  if (video !== undefined) {
    return {
      $type: "app.bsky.embed.video",
      video: video.blob,
      ...(video.media.altText === null ? {} : { alt: video.media.altText }),
      ...aspectRatioOf(video.media)
    }
  }
  if (uploaded.length > 0) {
    return {
      $type: "app.bsky.embed.images",
      // alt is required by the lexicon; an empty one says the image has none.
      images: uploaded.map((item) => ({ image: item.blob, alt: item.media.altText ?? "", ...aspectRatioOf(item.media) }))
    }
  }
  return card === null ? null : { $type: "app.bsky.embed.external", external: card }
}

export const postRecord = (fields: {
  readonly text: string
  readonly facets: ReadonlyArray<Facet>
  readonly embed: Record<string, unknown> | null
  readonly createdAt: string
  readonly marker: string
}): Record<string, unknown> => ({
  $type: postCollection,
  text: fields.text,
  createdAt: fields.createdAt,
  ...(fields.facets.length === 0 ? {} : { facets: fields.facets }),
  ...(fields.embed === null ? {} : { embed: fields.embed }),
  [markerField]: fields.marker
})

export interface RecordAddress {
  readonly did: string
  readonly collection: string
  readonly rkey: string
}

/** The parts of an at-uri (at://<did>/<collection>/<rkey>); null when it is not one. */
export const parseAtUri = (uri: string): RecordAddress | null => {
  const match = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri)
  return match === null ? null : { did: match[1]!, collection: match[2]!, rkey: match[3]! }
}

/** Where people see the post: the Bluesky app's URL for it. */
export const postUrl = (handle: string, rkey: string): string =>
  `https://bsky.app/profile/${handle}/post/${rkey}`
