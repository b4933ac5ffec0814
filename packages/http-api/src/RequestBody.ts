import {
  HttpApi,
  HttpMethod,
  HttpRouter,
  HttpServerRequest
} from "@effect/platform"
import { checkStoredText, maxJsonDepth } from "@herald/core"
import { Context, Effect, Layer, Option, Stream } from "effect"
import { HeraldApi, RequestBodyGuard, StoredTextPerItem } from "./Api.js"
import { dropRest, readBounded } from "./BodyDrain.js"
import { BadRequest, PayloadTooLarge, refusedFields, UnsupportedMediaType } from "./HttpErrors.js"

/** The largest body each content type may carry: a JSON post is small; a bulk CSV of 100 rows of 10,000 characters is not. */
export const bodyLimits: Readonly<Record<string, number>> = {
  "application/json": 1024 * 1024,
  "text/csv": 4 * 1024 * 1024,
  "multipart/form-data": 4 * 1024 * 1024
}

interface BodyRules {
  /** The content types its payload schema accepts. */
  readonly types: ReadonlyArray<string>
  /** Whether the guard judges the body's text (false where the use case does, item by item). */
  readonly storedText: boolean
}

/** "METHOD /path/:param" → how its body is guarded, read off the API itself. */
const bodyRules = (api: HttpApi.HttpApi.Any): ReadonlyMap<string, BodyRules> => {
  const rules = new Map<string, BodyRules>()
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, payloads }) => {
      if (HttpMethod.hasBody(endpoint.method) && payloads.size > 0) {
        rules.set(`${endpoint.method} ${endpoint.path}`, {
          types: [...payloads.keys()],
          storedText: Option.isNone(Context.getOption(endpoint.annotations, StoredTextPerItem))
        })
      }
    }
  })
  return rules
}

const mediaType = (header: string | undefined) => (header ?? "").split(";")[0]!.trim().toLowerCase()

const charsetOf = (header: string | undefined) => /;\s*charset="?([^";]+)"?/i.exec(header ?? "")?.[1]?.toLowerCase() ?? null

const malformed = (error: string) => new BadRequest({ error, code: "malformed_body" })

const tooLarge = (limit: number) =>
  new PayloadTooLarge({ error: `the request body is larger than ${limit} bytes`, code: "body_too_large" })

/**
 * How far past its limit a body is still read (and dropped) before the 413 is written, so it
 * reaches a client that reads nothing until it has sent everything; past that the 413 is written
 * at once and the rest dropped for a while (BodyDrain).
 */
const drainFactor = 4

const declaredLength = (request: HttpServerRequest.HttpServerRequest) =>
  Option.fromNullable(request.headers["content-length"]).pipe(Option.map(Number))

/**
 * The body, or a 413 once it is known to be over the limit. A declared length within the limit
 * bounds the body (the HTTP framing holds it to that length), so such a body is read in one go;
 * any other is read chunk by chunk up to drainFactor times the limit, and one declared past that
 * is not read before the 413.
 */
const readWithin = (request: HttpServerRequest.HttpServerRequest, limit: number) => {
  const declared = declaredLength(request)
  if (Option.isSome(declared) && declared.value <= limit) {
    return Effect.mapBoth(request.arrayBuffer, {
      onFailure: () => malformed("the request body could not be read"),
      onSuccess: (buffer) => new Uint8Array(buffer)
    })
  }
  if (Option.isSome(declared) && declared.value > limit * drainFactor) {
    return Effect.zipRight(dropRest(request, 0), Effect.fail(tooLarge(limit)))
  }
  const chunks: Array<Uint8Array> = []
  let kept = 0
  return readBounded(request, limit * drainFactor, (chunk) => {
    kept += chunk.byteLength
    if (kept <= limit) chunks.push(chunk)
  }).pipe(
    Effect.mapError(() => malformed("the request body could not be read")),
    Effect.filterOrFail((read) => read <= limit, () => tooLarge(limit)),
    Effect.map(() => chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
  )
}

/** One decoder for every body: without `stream`, each decode starts afresh. */
const utf8 = new TextDecoder("utf-8", { fatal: true })

const decodeUtf8 = (bytes: Uint8Array) =>
  Effect.try({
    try: () => utf8.decode(bytes),
    catch: () => malformed("the request body is not valid UTF-8")
  })

const parseJson = (text: string) =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) => malformed(`the request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
  })

const nonEmpty = (type: string) => (bytes: Uint8Array) =>
  bytes.length === 0
    ? Effect.fail(new BadRequest({ error: `the request body is empty; send ${type}`, code: "invalid_request" }))
    : Effect.succeed(bytes)

/** A body of at most `limit` bytes as text, read and refused as guardBodies does: for a route that reads its own body. */
export const readText = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.flatMap(readWithin(request, limit), decodeUtf8)

/**
 * A JSON body of at most `limit` bytes, parsed, read and refused as guardBodies does: for a
 * handler that reads its own body (POST /media takes JSON or a streamed file).
 */
export const readJson = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  readWithin(request, limit).pipe(
    Effect.flatMap(nonEmpty("application/json")),
    Effect.flatMap(decodeUtf8),
    Effect.flatMap(parseJson)
  )

/**
 * A parsed body (JSON, or the fields of a form) judged before any schema sees it: nested deeper
 * than maxJsonDepth (400 body_too_deep; the schema error of such a value would be formatted by
 * recursion), or holding a string or key that cannot be stored (400 invalid_request naming each
 * field) unless `storedText` is false.
 */
export const checkParsedBody = (value: unknown, storedText = true): Effect.Effect<void, BadRequest> => {
  const check = checkStoredText(value)
  if (check._tag === "TooDeep") {
    return Effect.fail(new BadRequest({
      error: `the JSON body nests objects and arrays deeper than ${maxJsonDepth} levels (at ${check.field})`,
      code: "body_too_deep"
    }))
  }
  return storedText && check.violations.length > 0 ? Effect.fail(refusedFields(check.violations)) : Effect.void
}

/**
 * The same request with its checked body: the text (and, for JSON, the value it parses to) served
 * from what the guard read. The node request's own accessors would read the spent stream again;
 * a web Request around the bytes costs more than the rest of a small request together.
 */
const withText = (request: HttpServerRequest.HttpServerRequest, bytes: Uint8Array, text: string, json: Option.Option<unknown>) =>
  Object.create(request, {
    text: { value: Effect.succeed(text) },
    json: { value: Option.isSome(json) ? Effect.succeed(json.value) : parseJson(text) },
    arrayBuffer: { value: Effect.sync(() => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) },
    stream: { value: Stream.succeed(bytes) }
  }) as HttpServerRequest.HttpServerRequest

/** A multipart body goes back through a web Request, whose parser the multipart accessors use. */
const withMultipart = (request: HttpServerRequest.HttpServerRequest, bytes: Uint8Array) =>
  HttpServerRequest.fromWeb(
    new Request(new URL(request.url, "http://herald.internal"), {
      method: request.method,
      headers: Object.entries(request.headers).filter(([name]) => name !== "content-length" && name !== "transfer-encoding"),
      body: bytes
    })
  )

/**
 * The body guard of an API: for each endpoint that takes a body, the content types its payload
 * schema accepts (415 otherwise) and the size limit of each type (413 past it), UTF-8 and JSON
 * checked (400), JSON's depth and text too (checkParsedBody), then the request handed on with the
 * checked bytes. The admin API uses it too.
 */
export const guardBodies = (api: HttpApi.HttpApi.Any, limits: Readonly<Record<string, number>>) => {
  const guarded = bodyRules(api)
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { route } = yield* HttpRouter.RouteContext
    const rules = guarded.get(`${request.method} ${route.path}`)
    if (rules === undefined) return request
    const { types } = rules
    const header = request.headers["content-type"]
    const type = mediaType(header)
    if (!types.includes(type)) {
      return yield* Effect.fail(
        new UnsupportedMediaType({
          error: type === ""
            ? `send a Content-Type: ${types.join(", ")}`
            : `Content-Type ${type} is not accepted here; send ${types.join(", ")}`,
          code: "unsupported_media_type"
        })
      )
    }
    const charset = charsetOf(header)
    if (charset !== null && charset !== "utf-8" && charset !== "utf8") {
      return yield* Effect.fail(new UnsupportedMediaType({ error: `charset ${charset} is not accepted; send UTF-8`, code: "unsupported_media_type" }))
    }
    const bytes = yield* Effect.flatMap(readWithin(request, limits[type]!), nonEmpty(type))
    if (type === "multipart/form-data") return withMultipart(request, bytes)
    const text = yield* decodeUtf8(bytes)
    if (type !== "application/json") return withText(request, bytes, text, Option.none())
    const json = yield* parseJson(text)
    yield* checkParsedBody(json, rules.storedText)
    return withText(request, bytes, text, Option.some(json))
  })
}

export const RequestBodyGuardLive = Layer.sync(RequestBodyGuard, () => guardBodies(HeraldApi, bodyLimits))
