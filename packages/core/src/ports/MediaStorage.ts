import { Context, type DateTime, Effect, Layer, Option, type Scope, Schema, type Stream } from "effect"
import type { MediaRejected } from "./MediaIngest.js"

/**
 * Bytes received in full and held aside (a temporary file on the server), not yet media. Where
 * they are is the staging adapter's business; the file is dropped when its scope closes unless
 * MediaStorage.keep took it.
 */
export interface StagedFile {
  readonly location: string
  readonly bytes: number
  /** The name the sender gave, kept as a label only: the type always comes from the bytes. */
  readonly filename: string | null
}

/** The file is over the size limit; nothing of it was kept. */
export class MediaTooLarge extends Schema.TaggedError<MediaTooLarge>()("MediaTooLarge", {
  maxBytes: Schema.Int
}) {
  override get message(): string {
    return `the file is larger than ${this.maxBytes / (1024 * 1024)} MB`
  }
}

/** Neither local disk nor an object-store bucket is configured for media on this instance. */
export class MediaStorageUnavailable extends Schema.TaggedError<MediaStorageUnavailable>()("MediaStorageUnavailable", {}) {
  override get message(): string {
    return "media storage is not configured on this instance (neither a local directory nor a bucket)"
  }
}

/** A presigned browser form POST straight to the bucket; the file field must come last. */
export interface UploadForm {
  readonly url: string
  readonly fields: Readonly<Record<string, string>>
}

/** Where a ticket's direct upload may land, for how many bytes, until when. */
export interface UploadSlot {
  readonly key: string
  readonly maxBytes: number
  readonly expiresAt: DateTime.Utc
}

/** Holds incoming bytes aside, counting them, so nothing larger than the limit is ever held. */
export class MediaStaging extends Context.Tag("@herald/core/MediaStaging")<MediaStaging, {
  /** Writes the stream aside; MediaTooLarge as soon as it passes maxBytes. */
  readonly stage: <E>(
    bytes: Stream.Stream<Uint8Array, E>,
    options: { readonly maxBytes: number; readonly filename: string | null }
  ) => Effect.Effect<StagedFile, E | MediaTooLarge, Scope.Scope>
  /**
   * Fetches a public https URL aside through the outbound guard (refused addresses, redirects
   * re-checked per hop, timeout); MediaRejected says why a URL could not be fetched.
   */
  readonly fetch: (url: string, options: { readonly maxBytes: number }) => Effect.Effect<
    StagedFile,
    MediaRejected | MediaTooLarge,
    Scope.Scope
  >
}>() {}

/** The media bytes: a local directory or an S3-compatible bucket. */
export class MediaStorage extends Context.Tag("@herald/core/MediaStorage")<MediaStorage, {
  /** Makes a staged file the stored bytes of `key`. */
  readonly keep: (key: string, file: StagedFile) => Effect.Effect<void, MediaStorageUnavailable>
  readonly remove: (key: string) => Effect.Effect<void>
  /** The stored bytes of `key` (a publisher uploading them to a platform); none when nothing is stored there. */
  readonly read: (key: string) => Effect.Effect<Option.Option<Uint8Array>>
  /**
   * A public https URL the stored bytes of `key` can be downloaded from for a while (a presigned
   * GET on a bucket), for platforms that fetch media themselves (Meta's container flow). Absent
   * where the storage cannot hand one out (local disk).
   */
  readonly publicUrl?: (key: string) => Effect.Effect<Option.Option<string>>
  /** False when neither a local directory nor a bucket is configured: uploads answer 503. */
  readonly configured: boolean
  /** A presigned form for a direct upload to the slot; none when the bytes live on local disk. */
  readonly uploadForm: (slot: UploadSlot) => Effect.Effect<Option.Option<UploadForm>>
  /**
   * Takes what was uploaded straight to a slot: stages it (counting bytes against the slot's
   * limit) and deletes the object. None when nothing was uploaded there.
   */
  readonly takeUpload: (slot: UploadSlot) => Effect.Effect<Option.Option<StagedFile>, MediaTooLarge, Scope.Scope>
}>() {
  /** No media storage at all: every upload answers MediaStorageUnavailable. */
  static readonly unconfigured: Layer.Layer<MediaStorage> = Layer.succeed(MediaStorage, MediaStorage.of({
    keep: () => Effect.fail(new MediaStorageUnavailable()),
    remove: () => Effect.void,
    read: () => Effect.succeed(Option.none()),
    configured: false,
    uploadForm: () => Effect.succeed(Option.none()),
    takeUpload: () => Effect.succeed(Option.none())
  }))
}
