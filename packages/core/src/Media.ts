import { Schema } from "effect"
import { MediaId, ProjectId } from "./Ids.js"

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
