import { Data, DateTime, Effect, Layer, Option, Schema } from "effect"
import type { SocialAccount } from "../Account.js"
import { requireScope } from "../Authorization.js"
import { errorCode } from "../ErrorCode.js"
import type { MissingScope } from "../Errors.js"
import { MediaId, type ProjectId } from "../Ids.js"
import { Media, type MediaKind, maxMediaBytes } from "../Media.js"
import { capabilitiesFor } from "../platforms/Registry.js"
import type { Principal } from "../Principal.js"
import { AccountStore } from "../ports/AccountStore.js"
import { IdGenerator } from "../ports/IdGenerator.js"
import { MediaAdmin } from "../ports/MediaAdmin.js"
import { MediaIngest, MediaRejected } from "../ports/MediaIngest.js"
import { type MediaFacts, MediaProbe, type UnsupportedMedia } from "../ports/MediaProbe.js"
import {
  MediaStaging,
  MediaStorage,
  MediaStorageUnavailable,
  type MediaTooLarge,
  type StagedFile,
  type UploadForm
} from "../ports/MediaStorage.js"
import { PeopleTagCheck } from "../ports/PeopleTagCheck.js"
import { UploadTicket, UploadTickets } from "../ports/UploadTickets.js"
import { inSpan, traced } from "../Tracing.js"

/** How long an upload slot lasts. */
export const ticketLifetimeSeconds = 600

/** What POST /media may say about the file besides its bytes. */
export interface MediaDetails {
  readonly altText: string | null
  readonly thumbnailTimestampMs: number | null
  readonly peopleTags: ReadonlyArray<string>
}

export const noDetails: MediaDetails = { altText: null, thumbnailTimestampMs: null, peopleTags: [] }

/** Where the bytes of a POST /media come from. */
export type MediaSource = Data.TaggedEnum<{
  Url: { readonly url: string }
  Ticket: { readonly ticket: string }
  File: { readonly file: StagedFile }
}>
export const MediaSource = Data.taggedEnum<MediaSource>()

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** No such ticket in this project, nothing was uploaded to it yet, or it was already redeemed. */
export class TicketNotFound extends Schema.TaggedError<TicketNotFound>()("TicketNotFound", {
  reason: Schema.Literal("unknown", "empty", "claimed")
}) {
  override get message(): string {
    switch (this.reason) {
      case "unknown":
        return "no such upload ticket in this project"
      case "empty":
        return "nothing was uploaded to this ticket yet; post the file to its url or attach_url first"
      case "claimed":
        return "this upload ticket was already claimed"
    }
  }
}

export class TicketExpired extends Schema.TaggedError<TicketExpired>()("TicketExpired", {
  expiredAt: Schema.DateTimeUtc
}) {
  override get message(): string {
    return `this upload ticket expired at ${DateTime.formatIso(this.expiredAt)}; ask POST /media/ticket for a new one`
  }
}

/** people_tags were sent but no account of the project can have its handles checked. */
export class PeopleTagsUnavailable extends Schema.TaggedError<PeopleTagsUnavailable>()("PeopleTagsUnavailable", {
  reason: Schema.String
}) {
  override get message(): string {
    return `people_tags cannot be used: ${this.reason}`
  }
}

export class PeopleTagsUnconfirmed extends Schema.TaggedError<PeopleTagsUnconfirmed>()("PeopleTagsUnconfirmed", {
  unknown: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `instagram cannot confirm these handles: ${this.unknown.join(", ")}; retry without them`
  }
}

/** Tags only go on a photo. The file was stored anyway (without tags): mediaId is usable as is. */
export class PeopleTagsNeedImage extends Schema.TaggedError<PeopleTagsNeedImage>()("PeopleTagsNeedImage", {
  mediaId: MediaId,
  kind: Schema.Literal("video", "document")
}) {
  override get message(): string {
    return `people_tags go on images only and this file is a ${this.kind}; it was stored without tags as ${this.mediaId}`
  }
}

/** thumbnail_timestamp_ms past the end of the video. */
export class ThumbnailOutOfRange extends Schema.TaggedError<ThumbnailOutOfRange>()("ThumbnailOutOfRange", {
  thumbnailTimestampMs: Schema.Int,
  durationMs: Schema.Int
}) {
  override get message(): string {
    return `thumbnail_timestamp_ms ${this.thumbnailTimestampMs} is past the end of the video (${this.durationMs} ms)`
  }
}

export type UploadMediaError =
  | MissingScope
  | MediaRejected
  | MediaTooLarge
  | UnsupportedMedia
  | MediaStorageUnavailable
  | TicketNotFound
  | TicketExpired
  | PeopleTagsUnavailable
  | PeopleTagsUnconfirmed
  | PeopleTagsNeedImage
  | ThumbnailOutOfRange

/** The machine-readable code of each refusal of an upload, the same on REST and MCP (docs/api.md). */
export const uploadErrorCodes = {
  MediaRejected: "media_unfetchable",
  UnsupportedMedia: "media_unsupported",
  ThumbnailOutOfRange: "invalid_request",
  TicketExpired: "ticket_expired",
  PeopleTagsNeedImage: "people_tags_need_image",
  PeopleTagsUnavailable: "people_tags_unavailable",
  MediaTooLarge: "media_too_large",
  PeopleTagsUnconfirmed: "people_tags_unconfirmed",
  MediaStorageUnavailable: "media_storage_unavailable",
  TicketNotFound: { unknown: "ticket_not_found", empty: "ticket_empty", claimed: "ticket_claimed" }
} as const satisfies Record<Exclude<UploadMediaError, MissingScope>["_tag"], unknown>

/**
 * A refusal of an upload as its reply body: error, code and what the refusal names (the field at
 * fault, the stored id of a file kept without its tags, the handles instagram could not confirm).
 */
export const uploadErrorBody = (error: UploadMediaError) => {
  const error_ = error.message
  switch (error._tag) {
    case "MissingScope":
      return { error: error_, code: errorCode(error) }
    case "TicketNotFound":
      return { error: error_, code: uploadErrorCodes.TicketNotFound[error.reason] }
    case "ThumbnailOutOfRange":
      return {
        error: error_,
        code: uploadErrorCodes.ThumbnailOutOfRange,
        violations: [{ field: "thumbnail_timestamp_ms", account: null, message: error_ }]
      }
    case "PeopleTagsNeedImage":
      return { error: error_, code: uploadErrorCodes.PeopleTagsNeedImage, id: error.mediaId }
    case "PeopleTagsUnconfirmed":
      return { error: error_, code: uploadErrorCodes.PeopleTagsUnconfirmed, unknown: error.unknown }
    default:
      return { error: error_, code: uploadErrorCodes[error._tag] }
  }
}

// ---------------------------------------------------------------------------------------------
// People tags
// ---------------------------------------------------------------------------------------------

const normalHandles = (handles: ReadonlyArray<string>) => [...new Set(handles.map((h) => h.replace(/^@/, "").toLowerCase()))]

const canTag = (account: SocialAccount) =>
  account.status === "active" && capabilitiesFor(account.platform, account.route).people_tags

/**
 * The check the handles will go through: the first instagram account of the project whose route
 * advertises can.people_tags and whose publisher looks handles up. Found before any byte is read,
 * so an unusable request costs nothing.
 */
const handleCheck = (projectId: ProjectId, handles: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const accounts = (yield* (yield* AccountStore).list(projectId)).filter(canTag)
    if (accounts.length === 0) {
      return yield* new PeopleTagsUnavailable({
        reason: "no active instagram account of this project is connected through a route that advertises can.people_tags"
      })
    }
    const check = yield* PeopleTagCheck
    const lookups = accounts.flatMap((account) => Option.toArray(check.unknownHandles(account, handles)))
    if (lookups.length === 0) {
      return yield* new PeopleTagsUnavailable({
        reason: `handle checking is not configured for ${accounts.map((a) => `instagram:${a.username}`).join(", ")}`
      })
    }
    return lookups[0]!
  })

// ---------------------------------------------------------------------------------------------
// Keeping a file
// ---------------------------------------------------------------------------------------------

const saveMedia = (projectId: ProjectId, file: StagedFile, facts: MediaFacts, details: MediaDetails) =>
  Effect.gen(function*() {
    const id = MediaId.make(yield* (yield* IdGenerator).uuid)
    const storageKey = `media/${projectId}/${id}`
    yield* (yield* MediaStorage).keep(storageKey, file)
    const media = new Media({
      id,
      projectId,
      kind: facts.kind,
      mime: facts.mime,
      bytes: file.bytes,
      filename: file.filename,
      width: facts.width,
      height: facts.height,
      durationSeconds: facts.durationSeconds,
      codec: facts.codec,
      altText: details.altText,
      peopleTags: details.peopleTags,
      thumbnailTimestampMs: details.thumbnailTimestampMs,
      storageKey,
      createdAt: yield* DateTime.now
    })
    yield* (yield* MediaAdmin).save(media)
    return media
  })

const notImage = (kind: MediaKind): kind is "video" | "document" => kind !== "image"

/**
 * Inspects a staged file and keeps it as a media row. Tags are checked (through `confirm`)
 * before anything is stored; tags on a video or PDF store the file untagged and say so.
 * `claim` runs just before the file is stored: a ticket is used up by a file kept, never by one
 * refused, so the same slot takes another try while it lasts.
 */
const keepFile = <R>(
  projectId: ProjectId,
  file: StagedFile,
  details: MediaDetails,
  confirm: Effect.Effect<ReadonlyArray<string>> | null,
  claim: Effect.Effect<void, TicketNotFound, R>
) =>
  Effect.gen(function*() {
    const facts = yield* (yield* MediaProbe).inspect(file)
    if (facts.kind === "video" && details.thumbnailTimestampMs !== null && facts.durationSeconds !== null) {
      const durationMs = Math.floor(facts.durationSeconds * 1000)
      if (details.thumbnailTimestampMs > durationMs) {
        return yield* new ThumbnailOutOfRange({ thumbnailTimestampMs: details.thumbnailTimestampMs, durationMs })
      }
    }
    if (confirm !== null && notImage(facts.kind)) {
      yield* claim
      const stored = yield* saveMedia(projectId, file, facts, { ...details, peopleTags: [] })
      return yield* new PeopleTagsNeedImage({ mediaId: stored.id, kind: facts.kind })
    }
    if (confirm !== null) {
      const unknown = yield* confirm
      if (unknown.length > 0) return yield* new PeopleTagsUnconfirmed({ unknown })
    }
    yield* claim
    return yield* saveMedia(projectId, file, facts, details)
  })

// ---------------------------------------------------------------------------------------------
// Tickets
// ---------------------------------------------------------------------------------------------

const slotOf = (ticket: UploadTicket) => ({ key: ticket.storageKey, maxBytes: ticket.maxBytes, expiresAt: ticket.expiresAt })

/** An issued upload slot: the ticket and, on a bucket, the presigned form for a direct upload. */
export interface IssuedTicket {
  readonly ticket: UploadTicket
  readonly expiresInSeconds: number
  readonly form: Option.Option<UploadForm>
}

/** Some media storage is configured; checked before any byte is read (503 otherwise). */
export const requireMediaStorage = Effect.flatMap(
  MediaStorage,
  (storage) => storage.configured ? Effect.succeed(storage) : Effect.fail(new MediaStorageUnavailable())
)

/** A ticket is "upl_" and a uuid's 32 hex digits (issueUploadTicket): a token of any other shape cannot be one. */
const ticketShape = /^upl_[0-9a-f]{32}$/i

/** POST /media/ticket. */
export const issueUploadTicket = traced("issueUploadTicket")(function*(principal: Principal) {
  yield* requireScope(principal, "posts:write")
  const storage = yield* requireMediaStorage
  const uuid = yield* (yield* IdGenerator).uuid
  const now = yield* DateTime.now
  const ticket = new UploadTicket({
    ticket: `upl_${uuid.replaceAll("-", "")}`,
    projectId: principal.projectId,
    keyId: principal.keyId,
    maxBytes: maxMediaBytes,
    createdAt: now,
    expiresAt: DateTime.add(now, { seconds: ticketLifetimeSeconds }),
    claimedAt: null
  })
  const form = yield* storage.uploadForm(slotOf(ticket))
  yield* (yield* UploadTickets).create(ticket)
  return { ticket, expiresInSeconds: ticketLifetimeSeconds, form } satisfies IssuedTicket
})

/**
 * A ticket that can still take an upload: known (in the project, when one is given), unclaimed,
 * unexpired. The attach URL asks before reading the body.
 */
export const openTicket = traced("openTicket")(function*(token: string, projectId: ProjectId | null) {
  // Not looked up: storage need not take any string a URL can carry (a NUL, 10,000 characters).
  if (!ticketShape.test(token)) return yield* new TicketNotFound({ reason: "unknown" })
  const found = yield* (yield* UploadTickets).find(token)
  if (Option.isNone(found) || (projectId !== null && found.value.projectId !== projectId)) {
    return yield* new TicketNotFound({ reason: "unknown" })
  }
  const ticket = found.value
  if (ticket.claimedAt !== null) return yield* new TicketNotFound({ reason: "claimed" })
  const now = yield* DateTime.now
  if (DateTime.greaterThanOrEqualTo(now, ticket.expiresAt)) return yield* new TicketExpired({ expiredAt: ticket.expiresAt })
  return ticket
})

/** Uses the ticket up; of two uploads racing to one slot, the one that claims second is refused. */
const claim = (ticket: UploadTicket) =>
  Effect.gen(function*() {
    const claimed = yield* (yield* UploadTickets).claim(ticket.ticket, yield* DateTime.now)
    if (!claimed) return yield* new TicketNotFound({ reason: "claimed" })
  })

/**
 * The bytes uploaded straight to the bucket for this ticket, taken (staged, then deleted there),
 * and the claim to run once they are found worth keeping.
 */
const redeem = (principal: Principal, token: string) =>
  Effect.gen(function*() {
    const ticket = yield* openTicket(token, principal.projectId)
    const taken = yield* (yield* MediaStorage).takeUpload(slotOf(ticket))
    if (Option.isNone(taken)) return yield* new TicketNotFound({ reason: "empty" })
    return { file: taken.value, claim: claim(ticket) }
  })

// ---------------------------------------------------------------------------------------------
// Use cases
// ---------------------------------------------------------------------------------------------

/** A file that came with no ticket: nothing to claim when it is kept. */
const unticketed = (file: StagedFile) => ({ file, claim: Effect.void })

/**
 * POST /media: a URL (fetched through the outbound guard), a redeemed ticket, or a file the HTTP
 * layer already staged. The type always comes from the bytes.
 */
export const uploadMedia = traced("uploadMedia")(function*(
  principal: Principal,
  source: MediaSource,
  details: MediaDetails
) {
  yield* requireScope(principal, "posts:write")
  yield* requireMediaStorage
  const tags = { ...details, peopleTags: normalHandles(details.peopleTags) }
  const confirm = tags.peopleTags.length === 0 ? null : yield* handleCheck(principal.projectId, tags.peopleTags)
  return yield* Effect.scoped(Effect.gen(function*() {
    const { claim, file } = yield* MediaSource.$match(source, {
      Url: ({ url }) =>
        Effect.flatMap(MediaStaging, (staging) => staging.fetch(url, { maxBytes: maxMediaBytes })).pipe(Effect.map(unticketed)),
      Ticket: ({ ticket }) => redeem(principal, ticket),
      File: ({ file }) => Effect.succeed(unticketed(file))
    })
    return yield* keepFile(principal.projectId, file, tags, confirm, claim)
  }))
})

/**
 * The attach URL: a browser posted the file with the ticket alone (the ticket is the credential);
 * the ticket is claimed by it once it is kept (a refused file leaves the slot open for another).
 */
export const attachUpload = traced("attachUpload")(function*(
  token: string,
  file: StagedFile,
  details: MediaDetails
) {
  const ticket = yield* openTicket(token, null)
  const tags = { ...details, peopleTags: normalHandles(details.peopleTags) }
  const confirm = tags.peopleTags.length === 0 ? null : yield* handleCheck(ticket.projectId, tags.peopleTags)
  return yield* keepFile(ticket.projectId, file, tags, confirm, claim(ticket))
})

/**
 * MediaIngest over the same path as POST /media url: bulk rows' media_urls become media rows, a
 * refusal of any kind a MediaRejected naming the URL.
 */
export const MediaIngestLive = Layer.effect(
  MediaIngest,
  Effect.gen(function*() {
    const context = yield* Effect.context<MediaStaging | MediaProbe | MediaStorage | MediaAdmin | IdGenerator>()
    return MediaIngest.of({
      fromUrl: (projectId, url) =>
        Effect.scoped(Effect.gen(function*() {
          const file = yield* (yield* MediaStaging).fetch(url, { maxBytes: maxMediaBytes })
          return yield* keepFile(projectId, file, noDetails, null, Effect.void)
        })).pipe(
          Effect.catchAll((error) =>
            Effect.fail(error._tag === "MediaRejected" ? error : new MediaRejected({ url, reason: error.message }))
          ),
          Effect.provide(context),
          inSpan("MediaIngest.fromUrl")
        )
    })
  })
)

/**
 * No media on this instance: uploads and tickets answer MediaStorageUnavailable before reading
 * anything, media_urls are refused, people_tags have no handle check. For embedders and tests
 * that leave media out.
 */
export const MediaNotConfigured: Layer.Layer<MediaStaging | MediaStorage | MediaProbe | UploadTickets | PeopleTagCheck> = Layer
  .mergeAll(
    MediaStorage.unconfigured,
    PeopleTagCheck.notConfigured,
    UploadTickets.inMemory(),
    Layer.succeed(MediaStaging, MediaStaging.of({
      stage: () => Effect.dieMessage("media staging is not configured (MediaStorage.configured is false)"),
      fetch: (url) => Effect.fail(new MediaRejected({ url, reason: "fetching media from URLs is not configured here" }))
    })),
    Layer.succeed(MediaProbe, MediaProbe.of({
      inspect: () => Effect.dieMessage("media inspection is not configured (MediaStorage.configured is false)")
    }))
  )
