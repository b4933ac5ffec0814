import {
  MediaKind,
  MediaSource,
  MediaStaging,
  maxMediaBytes,
  requireScope,
  uploadErrorBody,
  uploadMedia
} from "@herald/core"
import { Effect, Schema, Stream } from "effect"
import { type Refusal, refuse, tool } from "../Tool.js"

/** The most base64 may carry, decoded: larger files come by url (up to the media limit). */
export const maxBase64Bytes = 5 * 1024 * 1024

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`

const base64Shape = /^[A-Za-z0-9+/]*={0,2}$/

const decodedLength = (base64: string) => Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0)

const invalid = (field: string, message: string): Refusal => ({
  error: `invalid arguments: ${field}: ${message}`,
  code: "invalid_request",
  violations: [{ field, account: null, message }]
})

/** The bytes of a base64 argument, refused above maxBase64Bytes (naming the limit and the url alternative). */
const base64Bytes = (base64: string): Effect.Effect<Uint8Array, Refusal> => {
  const text = base64.replace(/\s+/g, "")
  if (!base64Shape.test(text) || text.length % 4 === 1) return Effect.fail(invalid("base64", "not valid base64"))
  const size = decodedLength(text)
  if (size > maxBase64Bytes) {
    return Effect.fail({
      error: `base64 takes at most ${megabytes(maxBase64Bytes)} decoded and this file is ${megabytes(size)}; ` +
        `put it at a public https URL and send url instead (up to ${megabytes(maxMediaBytes)})`,
      code: "media_too_large"
    })
  }
  return Effect.succeed(Buffer.from(text, "base64"))
}

/** POST /media (url) and, for small files, the bytes themselves. */
export const uploadMediaTool = tool({
  name: "upload_media",
  title: "Upload an image, video or PDF",
  description:
    "Stores a file for create_post's media_ids and answers { id, kind } (kind image, video or document, read from the bytes). " +
    "Give exactly one of url (a public https URL Herald fetches, up to 100 MB) or base64 (the file itself, at most 5 MB " +
    `decoded; larger files must come by url). Needs posts:write.`,
  input: Schema.Struct({
    // Descriptions go on the fields, not their types: a type's description becomes its refusal message.
    url: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048)).annotations({
      examples: ["https://example.com/launch.jpg"]
    })).annotations({ description: "A public https URL of the file (up to 100 MB); private and loopback addresses are refused." }),
    base64: Schema.optional(Schema.String.annotations({
      description: "The file's bytes in base64, at most 5 MB decoded; use url for anything larger."
    })),
    filename: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255))).annotations({
      description: "The file's name, kept as a label (a PDF's name titles a linkedin document post); the type comes from the bytes."
    }),
    alt_text: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))).annotations({ description: "Image accessibility text, up to 1000 characters." }),
    thumbnail_timestamp_ms: Schema.optional(Schema.NonNegativeInt.annotations({ description: "A video's cover frame, in milliseconds from its start." }))
  }),
  output: Schema.Struct({ id: Schema.UUID, kind: MediaKind }),
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (principal, input) =>
    Effect.gen(function*() {
      // Scope first: a key without posts:write uploads nothing.
      yield* Effect.catchAll(requireScope(principal, "posts:write"), refuse)
      const details = { altText: input.alt_text ?? null, thumbnailTimestampMs: input.thumbnail_timestamp_ms ?? null, peopleTags: [] }
      if ((input.url === undefined) === (input.base64 === undefined)) {
        return yield* Effect.fail(invalid(input.url === undefined ? "url" : "base64", "give exactly one of url and base64"))
      }
      const upload = (source: MediaSource) => Effect.mapError(uploadMedia(principal, source, details), uploadErrorBody)
      const media = input.url !== undefined
        ? yield* upload(MediaSource.Url({ url: input.url }))
        : yield* Effect.scoped(Effect.gen(function*() {
          const bytes = yield* base64Bytes(input.base64!)
          const staging = yield* MediaStaging
          const file = yield* staging.stage(Stream.succeed(bytes), { maxBytes: maxMediaBytes, filename: input.filename ?? null }).pipe(
            Effect.mapError(uploadErrorBody)
          )
          return yield* upload(MediaSource.File({ file }))
        }))
      return { id: media.id, kind: media.kind }
    }),
  text: (media) => `Stored ${media.kind} ${media.id}; pass it in create_post's media_ids.`
})
