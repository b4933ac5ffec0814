import { Context, type Effect, Schema } from "effect"
import type { MediaKind } from "../Media.js"
import type { StagedFile } from "./MediaStorage.js"

/** What the bytes are, read from the bytes themselves (never the name or the declared type). */
export interface MediaFacts {
  readonly kind: MediaKind
  readonly mime: string
  readonly width: number | null
  readonly height: number | null
  readonly durationSeconds: number | null
  /** The picture stream's codec as ffprobe names it (h264, hevc, vp9, png, mjpeg, ...). */
  readonly codec: string | null
}

/** Not an image, video or PDF Herald accepts; `detected` is what the bytes turned out to be. */
export class UnsupportedMedia extends Schema.TaggedError<UnsupportedMedia>()("UnsupportedMedia", {
  detected: Schema.NullOr(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** Sniffs the type of a staged file and measures it (dimensions, duration). */
export class MediaProbe extends Context.Tag("@herald/core/MediaProbe")<MediaProbe, {
  readonly inspect: (file: StagedFile) => Effect.Effect<MediaFacts, UnsupportedMedia>
}>() {}
