import { type HttpServerRequest, Multipart } from "@effect/platform"
import { Deferred, Effect, Either, Fiber, Mailbox, Option, type Scope, Stream } from "effect"
import { readBounded } from "./BodyDrain.js"
import { type BadRequest, malformedBody } from "./HttpErrors.js"

/**
 * The framing of a multipart/form-data body (RFC 2046 section 5.1), checked before the parser
 * sees a byte of it.
 *
 * multipasta, the parser under @effect/platform's Multipart, finishes a body only at its closing
 * delimiter. A body that ends before it (cut short, inside a part's headers, without any
 * delimiter) leaves the parser neither done nor failed: @effect/platform's channel then asks it
 * again and again without waiting, which starves the event loop, and the file part being read
 * never ends. A delimiter met inside a part's headers makes it hand on a part without headers,
 * which throws. So the parser is handed only bytes whose framing holds, found as it finds them:
 * delimiters are CRLF "--" boundary, the body read as if a CRLF came before it; each is followed
 * by CRLF or, at the close, "--"; each part's headers end with an empty line before the next
 * delimiter. Nothing after the close reaches the parser, and each delimiter reaches it together
 * with the two bytes after it. Any other body is refused (400 malformed_body, saying where).
 */

/** 1 to 70 of the characters RFC 2046 allows in a boundary, the last not a space. */
const boundaryPattern = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/

/** One Content-Type parameter after the media type (RFC 9110: `; name=value`, the value a token or a quoted string; empty ones allowed). */
const parameterPattern = /[ \t]*;[ \t]*(?:([!#$%&'*+.^\w`|~-]+)=("(?:[^"\\]|\\.)*"|[!#$%&'*+.^\w`|~-]+)[ \t]*)?/y

const unquote = (value: string) => value.startsWith("\"") ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value

/** The boundary a multipart Content-Type names, or why it names none Herald can read. */
export const boundaryOf = (contentType: string): Either.Either<string, BadRequest> => {
  const boundaries: Array<string> = []
  const start = contentType.indexOf(";")
  for (let at = start === -1 ? contentType.length : start; at < contentType.length;) {
    parameterPattern.lastIndex = at
    const match = parameterPattern.exec(contentType)
    if (match === null) return Either.left(malformedBody("the Content-Type's parameters do not parse"))
    if (match[1]?.toLowerCase() === "boundary") boundaries.push(unquote(match[2]!))
    at = parameterPattern.lastIndex
  }
  const [boundary, ...more] = boundaries
  if (boundary === undefined) return Either.left(malformedBody("a multipart/form-data Content-Type needs a boundary parameter"))
  if (more.length > 0) return Either.left(malformedBody("the Content-Type names more than one boundary"))
  return boundaryPattern.test(boundary)
    ? Either.right(boundary)
    : Either.left(malformedBody(
      "the boundary must be 1 to 70 letters, digits, spaces or '()+_,-./:=? (RFC 2046), not ending in a space"
    ))
}

/** The Content-Type the parser is given: the boundary checked here, so the parser splits at the same delimiters. */
export const contentTypeFor = (boundary: string) => `multipart/form-data; boundary="${boundary}"`

const headersEnd = Buffer.from("\r\n\r\n")
const nothing = new Uint8Array(0)

/** A framing check fed a body chunk by chunk, in one pass over each byte. */
export interface Framing {
  /** The bytes the parser may have now (some of a chunk can be held back until the next), or why the body is refused. */
  readonly write: (chunk: Uint8Array) => Either.Either<Uint8Array, BadRequest>
  /** At the body's end: why it is refused, unless it reached its close. */
  readonly end: () => Option.Option<BadRequest>
  /** Whether the close has been read: nothing after it is handed on. */
  readonly closed: () => boolean
}

export const framing = (boundary: string): Framing => {
  const delimiter = Buffer.from(`\r\n--${boundary}`)
  // The parser reads the body as if it began with CRLF, so that it may open with "--boundary".
  let held = Buffer.from("\r\n")
  let unsent = 2
  // What `held` starts with: bytes not yet searched, or (in "delimiter") the delimiter found.
  let phase: "preamble" | "delimiter" | "headers" | "body" | "closed" = "preamble"
  let part = 0

  const write = (chunk: Uint8Array): Either.Either<Uint8Array, BadRequest> => {
    if (phase === "closed") return Either.right(nothing)
    const bytes = held.length === 0
      ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
      : Buffer.concat([held, chunk])
    // A partial delimiter or end of headers at the end of the bytes is held until the next chunk.
    const searched = Math.max(0, bytes.length - (delimiter.length - 1))
    let at = 0
    let keep: number
    scan: for (;;) {
      switch (phase) {
        case "preamble":
        case "body": {
          const found = bytes.indexOf(delimiter, at)
          if (found === -1) {
            keep = Math.max(at, searched)
            break scan
          }
          phase = "delimiter"
          at = found
          continue
        }
        case "delimiter": {
          const after = at + delimiter.length
          if (bytes.length < after + 2) {
            keep = at
            break scan
          }
          if (bytes[after] === 0x2d && bytes[after + 1] === 0x2d) {
            phase = "closed"
            keep = after + 2
            break scan
          }
          part += 1
          if (bytes[after] !== 0x0d || bytes[after + 1] !== 0x0a) {
            return Either.left(malformedBody(`part ${part}: its boundary line does not end with CRLF right after the boundary`))
          }
          phase = "headers"
          at = after
          continue
        }
        case "headers": {
          // The parser reads headers up to the first empty line; a delimiter before it ends there
          // (a CRLF CRLF whose second CRLF starts a delimiter is not an empty line to the parser).
          const end = bytes.indexOf(headersEnd, at)
          const within = end === -1 ? bytes : bytes.subarray(0, end + 3 + delimiter.length)
          if (within.indexOf(delimiter, at) !== -1) {
            return Either.left(malformedBody(`part ${part}: its headers do not end with an empty line (CRLF CRLF) before the next boundary line`))
          }
          if (end === -1) {
            keep = Math.max(at, searched)
            break scan
          }
          if (bytes.length < end + 2 + delimiter.length) {
            keep = end
            break scan
          }
          phase = "body"
          at = end + 4
          continue
        }
      }
    }
    const sent = bytes.subarray(Math.min(unsent, keep), keep)
    unsent = Math.max(0, unsent - keep)
    held = phase === "closed" ? Buffer.alloc(0) : Buffer.from(bytes.subarray(keep))
    return Either.right(sent)
  }

  return {
    write,
    end: () =>
      phase === "closed"
        ? Option.none()
        : Option.some(malformedBody(
          part === 0 && phase === "preamble"
            ? `the body has no boundary line --${boundary}`
            : `the body ends before its closing boundary line --${boundary}--`
        )),
    closed: () => phase === "closed"
  }
}

/** A whole multipart body held in memory, checked in one pass: the bytes up to its close, for the parser. */
export const framedBody = (boundary: string, body: Uint8Array): Either.Either<Uint8Array, BadRequest> => {
  const check = framing(boundary)
  return Either.flatMap(check.write(body), (bytes) => Option.match(check.end(), { onNone: () => Either.right(bytes), onSome: Either.left }))
}

/**
 * multipasta throws a URIError, from inside @effect/platform's channel, for a part whose
 * filename* is not percent-encoded UTF-8: a defect to Effect, though the body is at fault.
 */
export const refusingUnreadableNames = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchSomeDefect(effect, (defect) =>
    defect instanceof URIError
      ? Option.some(Effect.fail(malformedBody("a part's filename* is not percent-encoded UTF-8")))
      : Option.none())

/** Chunks of a body waiting for the parser: enough to keep it busy, few enough that a slow reader holds the sender back. */
const inputChunks = 4

/**
 * Reads a multipart body as it arrives and hands `consume` its parts. One reader owns the body
 * (BodyDrain.readBounded): each chunk's framing is checked before the parser gets it, the body is
 * refused past `maxBytes`, and the parser sees no end unless the body reached its close, so it
 * never spins. When the body or `consume` is refused, the rest of the body is read and dropped
 * (up to `drainBytes`, then as readBounded) before the refusal is returned, so a client still
 * sending gets to read it.
 */
export const consumeParts = <A, E, R, TooLarge>(
  request: HttpServerRequest.HttpServerRequest,
  options: {
    readonly boundary: string
    readonly maxBytes: number
    readonly tooLarge: () => TooLarge
    readonly drainBytes: number
  },
  consume: (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | BadRequest | TooLarge, R | Scope.Scope> =>
  Effect.gen(function*() {
    const check = framing(options.boundary)
    const input = yield* Mailbox.make<Uint8Array>(inputChunks)
    const refused = yield* Deferred.make<never, BadRequest | TooLarge>()
    let feeding = true
    let size = 0
    const refuse = (error: BadRequest | TooLarge) => {
      feeding = false
      return Deferred.fail(refused, error)
    }
    const take = (chunk: Uint8Array): Effect.Effect<unknown> => {
      if (!feeding) return Effect.void
      size += chunk.byteLength
      if (size > options.maxBytes) return refuse(options.tooLarge())
      return Either.match(check.write(chunk), {
        onLeft: refuse,
        onRight: (bytes) => {
          const offered = bytes.byteLength === 0 ? Effect.void : input.offer(bytes)
          if (!check.closed()) return offered
          feeding = false
          return Effect.zipRight(offered, input.end)
        }
      })
    }
    const reading = yield* readBounded(request, options.drainBytes, take).pipe(
      Effect.flatMap(() => feeding ? Option.match(check.end(), { onNone: () => Effect.void, onSome: refuse }) : Effect.void),
      Effect.catchAll(() => refuse(malformedBody("the request body could not be read"))),
      Effect.fork
    )
    const stopFeeding = Effect.suspend(() => {
      feeding = false
      return input.shutdown
    })
    const parts = Stream.pipeThroughChannel(
      Mailbox.toStream(input),
      Multipart.makeChannel({ "content-type": contentTypeFor(options.boundary) })
    )
    return yield* Effect.raceFirst(refusingUnreadableNames(consume(parts)), Deferred.await(refused)).pipe(
      Effect.tapError(() => Effect.zipRight(stopFeeding, Fiber.await(reading))),
      Effect.ensuring(stopFeeding)
    )
  })
