import { createReadStream } from "node:fs"
import type { Readable } from "node:stream"
import { inSpan, MediaStaging, MediaStorage, MediaTooLarge } from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted, Stream } from "effect"

/** An S3-compatible bucket (AWS S3, MinIO, R2, ...). */
export interface BucketConfig {
  readonly bucket: string
  readonly region: string
  /** An S3-compatible service's endpoint; omit for AWS. */
  readonly endpoint?: string
  /** Path-style addressing (endpoint/bucket/key), which most S3-compatible services need. */
  readonly forcePathStyle?: boolean
  /** Omit to use the SDK's default chain (environment, instance role). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: Redacted.Redacted }
}

/**
 * How long a presigned GET lasts: Meta downloads a container's media while it processes it, which
 * takes seconds to minutes.
 */
const publicUrlSeconds = 60 * 60

/**
 * Media bytes in a bucket. A ticket's slot is a presigned form POST whose policy pins the key,
 * caps the size and lapses with the ticket; redeeming stages the object and deletes it.
 */
export const s3MediaStorage = (config: BucketConfig) =>
  Layer.scoped(
    MediaStorage,
    Effect.gen(function*() {
      const staging = yield* MediaStaging
      // The SDK is imported here, when a bucket is configured, not with this module: a server on
      // local media (the default) never holds its code (bench/README.md, Footprint).
      const [{ DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException }, { createPresignedPost }, {
        getSignedUrl
      }] = yield* Effect.promise(() =>
        Promise.all([import("@aws-sdk/client-s3"), import("@aws-sdk/s3-presigned-post"), import("@aws-sdk/s3-request-presigner")])
      )
      const isMissing = (error: unknown) =>
        error instanceof S3ServiceException && (error.name === "NoSuchKey" || error.$metadata.httpStatusCode === 404)
      const client = yield* Effect.acquireRelease(
        Effect.sync(() =>
          new S3Client({
            region: config.region,
            ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
            forcePathStyle: config.forcePathStyle ?? false,
            // Checksums only where S3 demands them: the default streams uploads with aws-chunked
            // framing and CRC trailers, which many S3-compatible services store verbatim.
            requestChecksumCalculation: "WHEN_REQUIRED",
            responseChecksumValidation: "WHEN_REQUIRED",
            ...(config.credentials === undefined ? {} : {
              credentials: {
                accessKeyId: config.credentials.accessKeyId,
                secretAccessKey: Redacted.value(config.credentials.secretAccessKey)
              }
            })
          })
        ),
        (client) => Effect.sync(() => client.destroy())
      )
      const Bucket = config.bucket
      const remove = (key: string) =>
        Effect.promise(() => client.send(new DeleteObjectCommand({ Bucket, Key: key }))).pipe(
          Effect.asVoid,
          inSpan("MediaStorage.remove")
        )

      return MediaStorage.of({
        keep: (key, file) =>
          Effect.promise(() =>
            client.send(
              new PutObjectCommand({ Bucket, Key: key, Body: createReadStream(file.location), ContentLength: file.bytes })
            )
          ).pipe(Effect.asVoid, inSpan("MediaStorage.keep")),
        remove,
        read: (key) =>
          Effect.tryPromise({
            try: () => client.send(new GetObjectCommand({ Bucket, Key: key })),
            catch: (error) => error
          }).pipe(
            Effect.flatMap((found) => Effect.promise(() => found.Body!.transformToByteArray())),
            Effect.map(Option.some),
            Effect.catchIf(isMissing, () => Effect.succeed(Option.none())),
            Effect.orDie,
            inSpan("MediaStorage.read")
          ),
        configured: true,
        // A presigned GET: the platform downloads the object straight from the bucket.
        publicUrl: (key) =>
          Effect.promise(() => getSignedUrl(client, new GetObjectCommand({ Bucket, Key: key }), { expiresIn: publicUrlSeconds })).pipe(
            Effect.map(Option.some),
            inSpan("MediaStorage.publicUrl")
          ),
        uploadForm: (slot) =>
          Effect.gen(function*() {
            const now = yield* DateTime.now
            const seconds = Math.max(1, Math.floor(DateTime.distance(now, slot.expiresAt) / 1000))
            const form = yield* Effect.promise(() =>
              createPresignedPost(client, {
                Bucket,
                Key: slot.key,
                Conditions: [["content-length-range", 1, slot.maxBytes]],
                Expires: seconds
              })
            )
            return Option.some(form)
          }).pipe(inSpan("MediaStorage.uploadForm")),
        takeUpload: (slot) =>
          Effect.gen(function*() {
            const found = yield* Effect.tryPromise({
              try: () => client.send(new GetObjectCommand({ Bucket, Key: slot.key })),
              catch: (error) => error
            }).pipe(
              Effect.map(Option.some),
              Effect.catchIf(isMissing, () => Effect.succeed(Option.none())),
              Effect.orDie
            )
            if (Option.isNone(found)) return Option.none()
            // Whatever the outcome (staged, too large), the object is read once and gone.
            yield* Effect.addFinalizer(() => remove(slot.key))
            const { Body, ContentLength } = found.value
            if (ContentLength !== undefined && ContentLength > slot.maxBytes) {
              ;(Body as Readable | undefined)?.destroy()
              return yield* new MediaTooLarge({ maxBytes: slot.maxBytes })
            }
            const bytes = Stream.fromAsyncIterable(Body as AsyncIterable<Uint8Array>, (error) => error).pipe(Stream.orDie)
            return Option.some(yield* staging.stage(bytes, { maxBytes: slot.maxBytes, filename: null }))
          }).pipe(inSpan("MediaStorage.takeUpload"))
      })
    })
  )
