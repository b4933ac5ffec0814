import { type HttpServerRequest, Multipart } from "@effect/platform"
import { MediaStaging, maxMediaBytes, type MediaDetails, MediaTooLarge, type StagedFile } from "@herald/core"
import { Effect, Either, Option, ParseResult, Schema, type Scope, Stream } from "effect"
import { dropRest } from "../BodyDrain.js"
import { BadRequest, invalidRequest, malformedBody, MediaTooLargeError } from "../HttpErrors.js"
import { boundaryOf, consumeParts } from "../MultipartFraming.js"
import { checkParsedBody, readJson } from "../RequestBody.js"
import { MediaFormFields, MediaJsonBody } from "./MediaApi.js"

/** Room for the multipart framing and text fields around a file of the largest size. */
const multipartSlack = 1024 * 1024
const maxJsonBytes = 64 * 1024

const badRequest = (error: string, code: BadRequest["code"] = "invalid_request") => new BadRequest({ error, code })
const tooLarge = () => new MediaTooLargeError({ error: new MediaTooLarge({ maxBytes: maxMediaBytes }).message, code: "media_too_large" })

export const contentTypeOf = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()

/**
 * How much of a refused upload is still read (and dropped) before the reply, so a client that is
 * still sending gets to read it (most clients read nothing until they have sent everything).
 */
const maxDrainBytes = 2 * maxMediaBytes

const decodeWith = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  checkParsedBody(input).pipe(
    Effect.zipRight(Schema.decodeUnknown(schema)(input)),
    Effect.catchTag("ParseError", (error) =>
      Effect.flatMap(ParseResult.ArrayFormatter.formatError(error), (issues) => Effect.fail(invalidRequest(issues))))
  )

const detailsOf = (fields: {
  readonly thumbnail_timestamp_ms?: number | undefined
  readonly alt_text?: string | undefined
  readonly people_tags?: ReadonlyArray<string> | undefined
}): MediaDetails => ({
  altText: fields.alt_text ?? null,
  thumbnailTimestampMs: fields.thumbnail_timestamp_ms ?? null,
  peopleTags: fields.people_tags ?? []
})

export type JsonSource = { readonly url: string } | { readonly ticket: string }

/** A JSON POST /media body: exactly one of url and ticket, plus the optional details. */
export const readJsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const body = yield* decodeWith(MediaJsonBody, yield* readJson(request, maxJsonBytes))
    const source: JsonSource | null = body.url !== undefined && body.ticket === undefined
      ? { url: body.url }
      : body.ticket !== undefined && body.url === undefined
      ? { ticket: body.ticket }
      : null
    if (source === null) {
      return yield* Effect.fail(badRequest(
        body.url === undefined
          ? "send a file (multipart), a url or a ticket"
          : "send url or ticket, not both"
      ))
    }
    return { source, details: detailsOf(body) }
  })

/** people_tags in a form: the field repeated, a JSON array, or a comma-separated list. */
const formTags = (values: ReadonlyArray<string>) =>
  Effect.forEach(values, (value) => {
    const text = value.trim()
    if (!text.startsWith("[")) return Effect.succeed(text.split(",").map((tag) => tag.trim()).filter((tag) => tag !== ""))
    return Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => badRequest("people_tags: the JSON array does not parse")
    }).pipe(
      Effect.flatMap((parsed) =>
        Array.isArray(parsed) && parsed.every((tag) => typeof tag === "string")
          ? Effect.succeed(parsed as ReadonlyArray<string>)
          : Effect.fail(badRequest("people_tags: expected an array of handles"))
      )
    )
  }).pipe(Effect.map((lists) => lists.flat()))

const multipartFailure = (error: Multipart.MultipartError) =>
  error.reason === "FieldTooLarge"
    ? badRequest("a form field is too long")
    : error.reason === "TooManyParts"
    ? badRequest("the form has too many parts")
    : malformedBody("the multipart body could not be read")

/**
 * The form's parts: one file field named file, streamed to staging as it arrives (counted against
 * 100 MB, never held in memory), and the text fields beside it.
 */
const formOf = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) =>
  Effect.gen(function*() {
    const staging = yield* MediaStaging
    const fields = new Map<string, Array<string>>()
    let file: StagedFile | null = null
    const limited = Multipart.withLimitsStream(parts, { maxParts: Option.some(16), maxFieldSize: 64 * 1024, maxFileSize: Option.none() })
    yield* Stream.runForEach(limited, (part): Effect.Effect<void, BadRequest | MediaTooLarge | Multipart.MultipartError, Scope.Scope> => {
      if (part._tag === "Field") {
        if (part.key === "file") return Effect.fail(badRequest("file must be a file upload (a part with a filename)"))
        fields.set(part.key, [...fields.get(part.key) ?? [], part.value])
        return Effect.void
      }
      if (part.key !== "file") return Effect.fail(badRequest(`unexpected file field ${JSON.stringify(part.key)}; send it as file`))
      if (file !== null) return Effect.fail(badRequest("send one file per request"))
      return staging.stage(part.content, { maxBytes: maxMediaBytes, filename: part.name === "" ? null : part.name }).pipe(
        Effect.map((staged) => {
          file = staged
        })
      )
    }).pipe(
      Effect.catchTags({
        MultipartError: (error) => Effect.fail(multipartFailure(error)),
        MediaTooLarge: () => Effect.fail(tooLarge())
      })
    )
    return { fields, file: file as StagedFile | null }
  })

/**
 * A multipart upload: its file staged (living until the surrounding scope closes) and its text
 * fields decoded. The body is read by consumeParts, which checks its framing before the parser
 * sees it; one refused before it is read (no usable boundary, a declared length already too
 * large) first has the rest drained, so a client that is still sending gets to read the refusal.
 */
export const readMultipart = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"] ?? Number.NaN)
    const boundary: Either.Either<string, BadRequest | MediaTooLargeError> = declared > maxMediaBytes + multipartSlack
      ? Either.left(tooLarge())
      : boundaryOf(request.headers["content-type"] ?? "")
    if (Either.isLeft(boundary)) return yield* Effect.zipRight(dropRest(request, maxDrainBytes), Effect.fail(boundary.left))
    const { fields, file } = yield* consumeParts(request, {
      boundary: boundary.right,
      maxBytes: maxMediaBytes + multipartSlack,
      tooLarge,
      drainBytes: maxDrainBytes
    }, formOf)
    if (file === null) return yield* Effect.fail(badRequest("send a file (multipart field file), a url or a ticket"))
    const peopleTags = fields.has("people_tags") ? yield* formTags(fields.get("people_tags")!) : undefined
    const single = Object.fromEntries(
      [...fields].filter(([key]) => key !== "people_tags").map(([key, values]) => [key, values.length === 1 ? values[0] : values])
    )
    const decoded = yield* decodeWith(MediaFormFields, { ...single, ...(peopleTags === undefined ? {} : { people_tags: peopleTags }) })
    return { file, details: detailsOf(decoded) }
  })
