import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import {
  AccountStore,
  attachUpload,
  errorCode,
  IdGenerator,
  issueUploadTicket,
  MediaAdmin,
  MediaLibrary,
  mediaInfoOf,
  MediaProbe,
  MediaSource,
  MediaStaging,
  MediaStorage,
  type MediaRejected,
  type MediaTooLarge,
  type MissingScope,
  openTicket,
  PeopleTagCheck,
  readMedia,
  readMediaContent,
  requireMediaStorage,
  requireScope,
  type PeopleTagsUnavailable,
  type ThumbnailOutOfRange,
  type TicketExpired,
  type TicketNotFound,
  type UnsupportedMedia,
  uploadErrorBody,
  uploadMedia,
  type UploadMediaError,
  UploadTickets
} from "@herald/core"
import { Effect, Option } from "effect"
import { Authentication, HeraldApi, RequestUrlGuard } from "../Api.js"
import { HttpApiConfig } from "../ApprovalLinks.js"
import {
  BadRequest,
  Conflict,
  errorResponse,
  failWith,
  MissingScopeError,
  type HttpError,
  isHttpError,
  MediaRefused,
  MediaTooLargeError,
  NotFound,
  PayloadTooLarge,
  UnsupportedMediaType
} from "../HttpErrors.js"
import { CurrentPrincipal, groupContext } from "../RequestPath.js"
import { PeopleTagsRefused, ServiceUnavailable, TagsNeedImage } from "./MediaApi.js"
import { mediaContentReply } from "./MediaContent.js"
import { contentTypeOf, readJsonBody, readMultipart } from "./MediaRequest.js"

/** The reply classes FailuresLive answers; the media-only ones are answered in place. */
type SharedClass = BadRequest | MediaRefused | NotFound | Conflict | PayloadTooLarge | MediaTooLargeError | UnsupportedMediaType | MissingScopeError

/** A shared reply as is, and a media refusal as the shared reply it fails with. */
type SharedReply<E> = E extends SharedClass ? E
  : E extends MissingScope ? MissingScopeError
  : E extends MediaRejected | UnsupportedMedia | TicketExpired ? MediaRefused
  : E extends ThumbnailOutOfRange ? BadRequest
  : E extends TicketNotFound ? NotFound
  : E extends PeopleTagsUnavailable ? Conflict
  : E extends MediaTooLarge ? MediaTooLargeError
  : never
type MediaReply =
  | SharedClass
  | PeopleTagsRefused | TagsNeedImage | ServiceUnavailable

/** The reply each media refusal gets (the contract's media status table); its body is core's uploadErrorBody. */
const replyOf = (error: UploadMediaError): MediaReply => {
  const body = uploadErrorBody(error)
  switch (error._tag) {
    case "MissingScope":
      return new MissingScopeError({ error: body.error, code: errorCode(error) })
    case "MediaRejected":
    case "UnsupportedMedia":
    case "TicketExpired":
      return new MediaRefused(body as MediaRefused)
    case "ThumbnailOutOfRange":
      return new BadRequest(body as BadRequest)
    case "PeopleTagsNeedImage":
      return new TagsNeedImage(body as TagsNeedImage)
    case "TicketNotFound":
      return new NotFound(body as NotFound)
    case "PeopleTagsUnavailable":
      return new Conflict(body as Conflict)
    case "MediaTooLarge":
      return new MediaTooLargeError(body as MediaTooLargeError)
    case "PeopleTagsUnconfirmed":
      return new PeopleTagsRefused(body as PeopleTagsRefused)
    case "MediaStorageUnavailable":
      return new ServiceUnavailable(body as ServiceUnavailable)
  }
}

const isMediaReply = (error: UploadMediaError | MediaReply): error is MediaReply =>
  isHttpError(error) || error instanceof PeopleTagsRefused || error instanceof TagsNeedImage ||
  error instanceof ServiceUnavailable

/**
 * Shared error classes go on to FailuresLive; the media-only ones (422 with unknown, 400 with
 * the stored id, 503) are answered here with errorResponse, which only reads a class's schema
 * and status.
 */
const replying = <A, E extends UploadMediaError | MediaReply, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A | HttpServerResponse.HttpServerResponse, SharedReply<E>, R> =>
  Effect.catchAll(effect, (error) => {
    const reply = isMediaReply(error) ? error : replyOf(error)
    return isHttpError(reply) ? Effect.fail(reply as SharedReply<E>) : Effect.succeed(errorResponse(reply as unknown as HttpError))
  })

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/** The same presigned upload as a curl command: every field in order, the file last. */
const curlFor = (url: string, fields: Readonly<Record<string, string>>) =>
  [
    "curl -X POST",
    shellQuote(url),
    ...Object.entries(fields).map(([name, value]) => `-F ${shellQuote(`${name}=${value}`)}`),
    "-F 'file=@/path/to/file'"
  ].join(" ")

const attachUrlOf = (baseUrl: string, ticket: string) => `${baseUrl.replace(/\/+$/, "")}/api/v1/media/attach/${ticket}`

const unsupportedType = (type: string, accepted: string) =>
  new UnsupportedMediaType({
    error: type === "" ? `send a Content-Type: ${accepted}` : `Content-Type ${type} is not accepted here; send ${accepted}`,
    code: "unsupported_media_type"
  })

export const MediaHttpLive = HttpApiBuilder.group(HeraldApi, "media", (handlers) =>
  handlers
    .handleRaw("upload", ({ request }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        // Scope first: a key without posts:write uploads nothing.
        yield* requireScope(principal, "posts:write").pipe(Effect.catchAll(failWith))
        yield* requireMediaStorage
        const type = contentTypeOf(request)
        if (type === "application/json") {
          const { source, details } = yield* readJsonBody(request)
          const media = yield* uploadMedia(
            principal,
            "url" in source ? MediaSource.Url({ url: source.url }) : MediaSource.Ticket({ ticket: source.ticket }),
            details
          )
          return { id: media.id, kind: media.kind }
        }
        if (type !== "multipart/form-data") return yield* Effect.fail(unsupportedType(type, "application/json, multipart/form-data"))
        const media = yield* Effect.scoped(Effect.gen(function*() {
          const { details, file } = yield* readMultipart(request)
          return yield* uploadMedia(principal, MediaSource.File({ file }), details)
        }))
        return { id: media.id, kind: media.kind }
      }).pipe(replying))
    .handleRaw("ticket", () =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const issued = yield* issueUploadTicket(principal)
        const { baseUrl } = yield* HttpApiConfig
        const ticket = issued.ticket.ticket
        return {
          ticket,
          attach_url: attachUrlOf(baseUrl, ticket),
          max_bytes: issued.ticket.maxBytes,
          expires_in_seconds: issued.expiresInSeconds,
          ...Option.match(issued.form, {
            onNone: () => ({}),
            onSome: ({ fields, url }) => ({ url, fields, curl: curlFor(url, fields) })
          })
        }
      }).pipe(replying))
    .handle("get", ({ path }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) => readMedia(principal, path.id)),
        Effect.map(mediaInfoOf),
        Effect.catchAll(failWith)
      ))
    .handleRaw("content", ({ path, request }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) => readMediaContent(principal, path.id)),
        Effect.map(({ bytes, media }) => mediaContentReply(request, media, bytes)),
        Effect.catchAll(failWith)
      ))
).pipe(groupContext(
  Authentication,
  RequestUrlGuard,
  HttpApiConfig,
  IdGenerator,
  AccountStore,
  MediaAdmin,
  MediaLibrary,
  MediaStaging,
  MediaStorage,
  MediaProbe,
  PeopleTagCheck,
  UploadTickets
))

/** A browser page on another origin posts here and reads the reply: the ticket is the credential. */
const corsOpen = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "access-control-allow-origin", "*"))
)

export const MediaAttachHttpLive = HttpApiBuilder.group(HeraldApi, "mediaAttach", (handlers) =>
  handlers.handleRaw("attach", ({ path, request }) =>
    Effect.gen(function*() {
      yield* corsOpen
      // The ticket is judged before a byte of the body is read.
      yield* openTicket(path.ticket, null)
      const type = contentTypeOf(request)
      if (type !== "multipart/form-data") return yield* Effect.fail(unsupportedType(type, "multipart/form-data"))
      const media = yield* Effect.scoped(Effect.gen(function*() {
        const { details, file } = yield* readMultipart(request)
        return yield* attachUpload(path.ticket, file, details)
      }))
      return { media_id: media.id }
    }).pipe(replying))
).pipe(groupContext(RequestUrlGuard, IdGenerator, AccountStore, MediaAdmin, MediaStaging, MediaStorage, MediaProbe, PeopleTagCheck, UploadTickets))
