/**
 * The body of POST /rest/posts for one delivery, and how a post LinkedIn holds is recognised as
 * that delivery's (reconcile): the same commentary, the same kind of content.
 */
import type { PublishRequest } from "@herald/core"
import { Schema } from "effect"
import type { Uploaded } from "./LinkedinMedia.js"
import { littleText } from "./LittleText.js"

const MediaContent = Schema.Struct({
  id: Schema.String,
  altText: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String)
})

/** The part of a post LinkedIn returns that Herald reads (its finder answers the same shape). */
export const LinkedinPost = Schema.Struct({
  id: Schema.String,
  author: Schema.String,
  commentary: Schema.optional(Schema.String),
  createdAt: Schema.optional(Schema.Number),
  lifecycleState: Schema.optional(Schema.String),
  content: Schema.optional(Schema.Struct({
    media: Schema.optional(MediaContent),
    multiImage: Schema.optional(Schema.Struct({ images: Schema.Array(MediaContent) }))
  }))
})
export type LinkedinPost = typeof LinkedinPost.Type

const withAlt = (item: Uploaded) => item.media.altText === null ? { id: item.urn } : { id: item.urn, altText: item.media.altText }

/** A document's title: document_title, else the file's name, else a plain word. */
const documentTitle = (request: PublishRequest, item: Uploaded) => {
  const configured = request.configuration as { readonly document_title?: string } | undefined
  return configured?.document_title ?? item.media.filename ?? "Document"
}

const content = (request: PublishRequest, uploaded: ReadonlyArray<Uploaded>) => {
  const [first] = uploaded
  if (first === undefined) return undefined
  if (first.media.kind === "document") return { media: { id: first.urn, title: documentTitle(request, first) } }
  if (first.media.kind === "video") return { media: { id: first.urn } }
  return uploaded.length === 1 ? { media: withAlt(first) } : { multiImage: { images: uploaded.map(withAlt) } }
}

export const postBody = (author: string, request: PublishRequest, uploaded: ReadonlyArray<Uploaded>) => ({
  author,
  commentary: littleText(request.text ?? ""),
  visibility: "PUBLIC",
  distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
  ...(uploaded.length === 0 ? {} : { content: content(request, uploaded) }),
  lifecycleState: "PUBLISHED",
  isReshareDisabledByAuthor: false
})

/** What a post carries, by the kinds of its media: "" for text alone, "image:2", "video", "document". */
const shapeOf = (post: LinkedinPost): string => {
  const media = post.content?.media
  if (post.content?.multiImage !== undefined) return `image:${post.content.multiImage.images.length}`
  if (media === undefined) return ""
  const kind = media.id.split(":")[2] ?? ""
  return kind === "image" ? "image:1" : kind
}

const requestShape = (request: PublishRequest): string => {
  const [first] = request.media
  if (first === undefined) return ""
  return first.kind === "image" ? `image:${request.media.length}` : first.kind
}

/**
 * Whether `post` is this delivery's: LinkedIn keeps no field of the caller's, so Herald's marker
 * cannot ride along; the same author, commentary and kind of content stand for it. LinkedIn
 * refuses a second post with the same content, so two live matches do not arise.
 */
export const isDeliveryPost = (post: LinkedinPost, author: string, request: PublishRequest) =>
  post.author === author && (post.commentary ?? "") === littleText(request.text ?? "") && shapeOf(post) === requestShape(request)

export const postUrl = (urn: string) => `https://www.linkedin.com/feed/update/${urn}/`
