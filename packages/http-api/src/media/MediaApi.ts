import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { maxPeopleTags, MediaInfo, MediaKind, PeopleTags, platformRegistry, platforms, platformsWith } from "@herald/core"
import { Schema } from "effect"
import {
  Conflict,
  MediaNotFoundError,
  MediaRefused,
  MediaTooLargeError,
  MissingScopeError,
  NotFound,
  PayloadTooLarge,
  UnsupportedMediaType
} from "../HttpErrors.js"

/** Fields of a media reply with its one code (an enum in the document). */
const body = <const Code extends string>(code: Code) => ({ error: Schema.String, code: Schema.Literal(code) })

/** 422: instagram could not confirm some people_tags handles; nothing was stored. */
export class PeopleTagsRefused extends Schema.Class<PeopleTagsRefused>("PeopleTagsRefused")({
  ...body("people_tags_unconfirmed"),
  unknown: Schema.Array(Schema.String).annotations({ description: "The handles that could not be confirmed." })
}, HttpApiSchema.annotations({ status: 422, description: "A people_tags handle cannot be confirmed; retry without the handles in unknown." })) {}

/** 400 that still stored the file: people_tags were sent with a video or PDF. */
export class TagsNeedImage extends Schema.Class<TagsNeedImage>("TagsNeedImage")({
  ...body("people_tags_need_image"),
  id: Schema.UUID.annotations({ description: "The stored media (without tags), usable as is." })
}, HttpApiSchema.annotations({ status: 400, description: "people_tags go on images only; the file was stored without them as id." })) {}

export class ServiceUnavailable extends Schema.Class<ServiceUnavailable>("ServiceUnavailable")(
  body("media_storage_unavailable"),
  HttpApiSchema.annotations({ status: 503, description: "Media storage (local or bucket) is not configured on this instance." })
) {}

/** 416: the Range asked for starts past the end of the file (Content-Range says its size). */
export class RangeNotSatisfiable extends Schema.Class<RangeNotSatisfiable>("RangeNotSatisfiable")(
  body("range_not_satisfiable"),
  HttpApiSchema.annotations({ status: 416, description: "The Range starts past the end of the file; Content-Range: bytes */size gives its size." })
) {}

const altTextPlatforms = platforms.filter((platform) => platformRegistry[platform].media.altText).join(" and ")

// Descriptions go on the fields, not their types: a type's description becomes its refusal message.
const detailFields = {
  thumbnail_timestamp_ms: Schema.optional(Schema.Int.pipe(Schema.nonNegative())).annotations({
    description: "Picks a video's cover frame (ms from the start)."
  }),
  alt_text: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))).annotations({
    description: `Image accessibility text (${altTextPlatforms} apply it natively).`
  }),
  people_tags: Schema.optional(PeopleTags.annotations({
    description: `Instagram handles tagged in a photo (up to ${maxPeopleTags}); needs an ${platformsWith("people_tags").join(" or ")} account that advertises can.people_tags.`
  }))
}

export const MediaJsonBody = Schema.Struct({
  url: Schema.optional(Schema.String.annotations({ description: "A public https URL Herald fetches.", jsonSchema: { format: "uri" } })),
  ticket: Schema.optional(Schema.String.annotations({ description: "A ticket from POST /media/ticket whose file was uploaded to its url." })),
  ...detailFields
}).annotations({
  identifier: "MediaJsonBody",
  description: "Give url or ticket.",
  parseOptions: { errors: "all", onExcessProperty: "error" }
})

/** Multipart text fields arrive as strings: the same rules, read from text. */
export const MediaFormFields = Schema.Struct({
  thumbnail_timestamp_ms: Schema.optional(Schema.compose(Schema.NumberFromString, detailFields.thumbnail_timestamp_ms.from)),
  alt_text: detailFields.alt_text,
  people_tags: detailFields.people_tags
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })

const binary = Schema.String.annotations({ description: "The file (100 MB at most).", jsonSchema: { type: "string", format: "binary" } })

const formFields = {
  file: binary,
  thumbnail_timestamp_ms: Schema.optional(Schema.String.annotations({ description: "Integer, min 0." })),
  alt_text: Schema.optional(Schema.String.annotations({ description: "Max 1000 characters." })),
  people_tags: Schema.optional(Schema.String.annotations({
    description: "Handles: the field repeated, a JSON array, or a comma-separated list."
  }))
}

export const MediaMultipart = HttpApiSchema.Multipart(Schema.Struct(formFields)).annotations({ identifier: "MediaMultipart" })
export const AttachMultipart = HttpApiSchema.Multipart(Schema.Struct(formFields)).annotations({ identifier: "AttachMultipart" })

export const UploadedMedia = Schema.Struct({ id: Schema.UUID, kind: MediaKind }).annotations({ identifier: "UploadedMedia" })

export const AttachedMedia = Schema.Struct({ media_id: Schema.UUID }).annotations({ identifier: "AttachedMedia" })

export const UploadTicketReply = Schema.Struct({
  ticket: Schema.String,
  attach_url: Schema.String.annotations({
    description: "Takes a multipart POST with a file field straight from a browser (no key) and answers { media_id }."
  }),
  max_bytes: Schema.Int,
  expires_in_seconds: Schema.Int,
  url: Schema.optional(Schema.String.annotations({ description: "Bucket configured: where to POST the presigned form." })),
  fields: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
    description: "Bucket configured: the form fields, in order; the file field goes last."
  })),
  curl: Schema.optional(Schema.String.annotations({ description: "Bucket configured: the same upload as a curl command." }))
}).annotations({ identifier: "UploadTicketReply" })

const MediaPath = Schema.Struct({ id: Schema.String.annotations({ description: "The media id POST /media answered." }) })

/** The stored bytes, sent with the media's own type (image/jpeg, video/mp4, …), not this placeholder's. */
export const MediaContent = HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }).annotations({
  description: "The file's bytes, with Content-Type its mime, an ETag and Accept-Ranges: bytes (a Range request answers 206)."
})

/** POST /media, POST /media/ticket and the reads: behind the API key (the group gets Authentication in HeraldApi). */
export class MediaGroup extends HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("upload", "/media")
      .setPayload(Schema.Union(MediaJsonBody, MediaMultipart))
      .addSuccess(UploadedMedia)
      .addError(TagsNeedImage)
      .addError(MissingScopeError)
      .addError(NotFound)
      .addError(Conflict)
      .addError(MediaRefused)
      .addError(PayloadTooLarge)
      .addError(MediaTooLargeError)
      .addError(UnsupportedMediaType)
      .addError(PeopleTagsRefused)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Upload media: JSON with url or ticket, or multipart with file")
  )
  .add(
    HttpApiEndpoint.post("ticket", "/media/ticket")
      .addSuccess(UploadTicketReply)
      .addError(MissingScopeError)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Open an upload slot (for browsers and large files)")
  )
  .add(
    HttpApiEndpoint.get("get", "/media/:id")
      .setPath(MediaPath)
      .addSuccess(MediaInfo)
      .addError(MissingScopeError)
      .addError(MediaNotFoundError)
      .annotate(OpenApi.Summary, "A stored file's kind, type, size, dimensions, duration and alt text")
  )
  .add(
    HttpApiEndpoint.get("content", "/media/content/:id")
      .setPath(MediaPath)
      .addSuccess(MediaContent)
      .addError(MissingScopeError)
      .addError(MediaNotFoundError)
      .addError(RangeNotSatisfiable)
      .annotate(OpenApi.Summary, "A stored file's bytes, for previews (ETag, Range)")
  )
  .annotate(OpenApi.Description, "Upload images, videos and PDFs for posts; open upload slots; read stored media back.")
{}

/** The attach URL of a ticket: no key, the ticket in the path is the credential. */
export class MediaAttachGroup extends HttpApiGroup.make("mediaAttach")
  .add(
    HttpApiEndpoint.post("attach", "/media/attach/:ticket")
      .setPath(Schema.Struct({ ticket: Schema.String }))
      .setPayload(AttachMultipart)
      .addSuccess(AttachedMedia)
      .addError(TagsNeedImage)
      .addError(NotFound)
      .addError(Conflict)
      .addError(MediaRefused)
      .addError(PayloadTooLarge)
      .addError(MediaTooLargeError)
      .addError(UnsupportedMediaType)
      .addError(PeopleTagsRefused)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Upload a ticket's file straight from a browser (the ticket is the credential)")
  )
  .annotate(OpenApi.Description, "An upload slot's attach URL: a browser posts the file there without an API key.")
{}
