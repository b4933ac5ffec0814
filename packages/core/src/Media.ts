import { DateTime, Schema } from "effect"
import { MediaId, ProjectId } from "./Ids.js"
import { Timestamp } from "./Timestamp.js"

export const MediaKind = Schema.Literal("image", "video", "document")
export type MediaKind = typeof MediaKind.Type

/** 100 MB: the largest file POST /media accepts. */
export const maxMediaBytes = 100 * 1024 * 1024

export class Media extends Schema.Class<Media>("Media")({
  id: MediaId,
  projectId: ProjectId,
  kind: MediaKind,
  mime: Schema.String,
  bytes: Schema.Int.pipe(Schema.nonNegative()),
  filename: Schema.NullOr(Schema.String),
  width: Schema.NullOr(Schema.Int),
  height: Schema.NullOr(Schema.Int),
  durationSeconds: Schema.NullOr(Schema.Number),
  /** The picture stream's codec as ffprobe names it; null for documents. */
  codec: Schema.NullOr(Schema.String),
  altText: Schema.NullOr(Schema.String.pipe(Schema.maxLength(1000))),
  peopleTags: Schema.Array(Schema.String),
  thumbnailTimestampMs: Schema.NullOr(Schema.Int.pipe(Schema.nonNegative())),
  storageKey: Schema.String,
  createdAt: Schema.DateTimeUtc
}) {}

/** GET /media/{id}: what is known of a stored file (the bytes are at GET /media/content/{id}). */
export const MediaInfo = Schema.Struct({
  id: MediaId,
  kind: MediaKind,
  mime: Schema.String.annotations({ description: "The type read from the bytes (never the sender's name for it)." }),
  bytes: Schema.Int.annotations({ description: "The file's size." }),
  width: Schema.NullOr(Schema.Int).annotations({ description: "Pixels; null when unknown (documents)." }),
  height: Schema.NullOr(Schema.Int),
  duration_seconds: Schema.NullOr(Schema.Number).annotations({ description: "Videos; null otherwise." }),
  alt_text: Schema.NullOr(Schema.String),
  filename: Schema.NullOr(Schema.String).annotations({ description: "The name the sender gave, as a label only." }),
  created_at: Timestamp
}).annotations({ identifier: "MediaInfo" })
export type MediaInfo = typeof MediaInfo.Type

export const mediaInfoOf = (media: Media): MediaInfo => ({
  id: media.id,
  kind: media.kind,
  mime: media.mime,
  bytes: media.bytes,
  width: media.width,
  height: media.height,
  duration_seconds: media.durationSeconds,
  alt_text: media.altText,
  filename: media.filename,
  created_at: DateTime.formatIso(media.createdAt)
})
