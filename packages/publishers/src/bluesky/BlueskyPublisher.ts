/**
 * Publishing to Bluesky through the account's PDS: facets resolved, media uploaded as blobs, then
 * one com.atproto.repo.createRecord. Only createRecord and deleteRecord change anything visible,
 * so only their unanswered calls are OutcomeUnknown; a blob nobody references is discarded by the PDS.
 */
import {
  AlreadyGone,
  type Media,
  OutcomeUnknown,
  type PlatformCallFailed,
  PublishFailed,
  type Publisher,
  type PublishRequest,
  type SocialAccount
} from "@herald/core"
import { Array as Arr, Clock, type Context, DateTime, Effect, Option, Schema } from "effect"
import { publishFailed, sessionLost } from "./BlueskyErrors.js"
import { MediaBytes } from "./KitShim.js"
import {
  type BlobRef,
  embedOf,
  markerField,
  parseAtUri,
  postCollection,
  postRecord,
  postUrl,
  type UploadedMedia
} from "./PostRecord.js"
import { linkCard } from "./LinkCard.js"
import { candidates, facets, firstLink, mentionedHandles } from "./RichText.js"
import { type Needs, type Session, withSession } from "./Session.js"
import { procedure, query, send, upload, type XrpcFailure } from "./Xrpc.js"

const CreatedRecord = Schema.Struct({ uri: Schema.String, cid: Schema.String })
const ResolvedHandle = Schema.Struct({ did: Schema.String })
const UploadedBlob = Schema.Struct({ blob: Schema.Unknown })
const Listed = Schema.Struct({
  records: Schema.Array(Schema.Struct({ uri: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }))
})
const Nothing = Schema.Unknown

/** How many of the account's latest posts a reconcile looks through for the marker. */
const reconcileWindow = 100

const refuse = (category: "media_rejected" | "not_found", code: string, message: string) =>
  new PublishFailed({ error: { category, code, message }, transient: false, retryAfterMs: null })

const noSession = (account: SocialAccount) => (failed: PlatformCallFailed | string): PublishFailed =>
  typeof failed === "string"
    ? new PublishFailed({ error: { category: "auth_expired", code: "InvalidToken", message: `${account.username}: ${failed}` }, transient: false, retryAfterMs: null })
    : sessionLost(failed)

export const blueskyPublisher = (apiBaseUrl: string, context: Context.Context<Needs>): Publisher => {
  const provide = <A, E>(effect: Effect.Effect<A, E, Needs>) => Effect.provide(effect, context)

  /** A handle that resolves to no DID is left as plain text, as the Bluesky app does. */
  const resolveHandle = (session: Session, handle: string) =>
    send({ kind: "read", request: query(apiBaseUrl, "com.atproto.identity.resolveHandle", { handle }, session.accessJwt), reply: ResolvedHandle })
      .pipe(
        Effect.map((resolved) => Option.some([handle, resolved.did] as const)),
        Effect.catchIf(
          (failure) => failure._tag === "XrpcRefused" && failure.status === 400 && failure.error === "InvalidRequest",
          () => Effect.succeed(Option.none())
        )
      )

  const uploadOne = (session: Session, media: Media) =>
    Effect.gen(function*() {
      const bytes = yield* Effect.mapError(
        (yield* MediaBytes).read(media),
        (unreadable) => refuse("media_rejected", "media_unreadable", `media ${media.id}: ${unreadable.detail}`)
      )
      const uploaded = yield* send({
        kind: "upload",
        request: upload(apiBaseUrl, "com.atproto.repo.uploadBlob", bytes, media.mime, session.accessJwt),
        reply: UploadedBlob
      })
      return { media, blob: uploaded.blob as BlobRef } satisfies UploadedMedia
    })

  const checkMedia = (media: ReadonlyArray<Media>) => {
    const videos = media.filter((item) => item.kind === "video").length
    const documents = media.filter((item) => item.kind === "document").length
    if (documents > 0) return Effect.fail(refuse("media_rejected", "documents_unsupported", "Bluesky posts carry no documents"))
    if (videos > 1 || (videos === 1 && media.length > 1)) {
      return Effect.fail(refuse("media_rejected", "media_mix_unsupported", "a Bluesky post carries up to 4 images or one video, not both"))
    }
    return Effect.void
  }

  const compose = (session: Session, request: PublishRequest) =>
    Effect.gen(function*() {
      const text = request.text ?? ""
      const found = candidates(text)
      const resolved = yield* Effect.forEach(mentionedHandles(found), (handle) => resolveHandle(session, handle), { concurrency: 4 })
      const uploaded = yield* Effect.forEach(request.media, (media) => uploadOne(session, media))
      const link = firstLink(found)
      const card = link === null || request.media.length > 0 ? null : yield* linkCard(link)
      const createdAt = DateTime.formatIso(DateTime.unsafeMake(yield* Clock.currentTimeMillis))
      return postRecord({
        text,
        facets: facets(found, new Map(Arr.getSomes(resolved))),
        embed: embedOf(uploaded, card),
        createdAt,
        marker: request.marker
      })
    })

  const publish = (request: PublishRequest) =>
    provide(
      Effect.gen(function*() {
        yield* checkMedia(request.media)
        return yield* withSession(
          request.account,
          (session) =>
            compose(session, request).pipe(
              Effect.flatMap((record) =>
                write(send({
                  kind: "publish",
                  request: procedure(apiBaseUrl, "com.atproto.repo.createRecord", { repo: session.did, collection: postCollection, record }, session.accessJwt),
                  reply: CreatedRecord
                }))
              ),
              Effect.map((created) => ({
                platformPostId: created.uri,
                url: postUrl(session.handle, parseAtUri(created.uri)?.rkey ?? ""),
                note: null
              }))
            ),
          noSession(request.account)
        )
      })
    ).pipe(Effect.mapError(toPublishError))

  return {
    capabilities: { publish: true, delete: true, reconcile: true, peopleTagCheck: false },
    publish,
    reconcile: (request) =>
      provide(withSession(
        request.account,
        (session) =>
          send({
            kind: "read",
            request: query(apiBaseUrl, "com.atproto.repo.listRecords", {
              repo: session.did,
              collection: postCollection,
              limit: String(reconcileWindow)
            }, session.accessJwt),
            reply: Listed
          }).pipe(Effect.map((listed) => {
            const found = listed.records.find((record) => record.value[markerField] === request.marker)
            return Option.map(Option.fromNullable(found), (record) => ({
              platformPostId: record.uri,
              url: postUrl(session.handle, parseAtUri(record.uri)?.rkey ?? ""),
              note: null
            }))
          })),
        noSession(request.account)
      )).pipe(Effect.mapError(toPublishError)),
    takedown: (account, platformPostId) => {
      const address = parseAtUri(platformPostId)
      if (address === null) return Effect.fail(refuse("not_found", "InvalidUri", `${platformPostId} is not a Bluesky post's at-uri`))
      return provide(withSession(
        account,
        (session) =>
          // deleteRecord answers 200 for a record that is not there, so look first.
          send({
            kind: "read",
            request: query(apiBaseUrl, "com.atproto.repo.getRecord", { ...addressParams(address) }, session.accessJwt),
            reply: Nothing
          }).pipe(
            Effect.catchIf(
              (failure) => failure._tag === "XrpcRefused" && failure.error === "RecordNotFound",
              () => Effect.fail(new AlreadyGone({ detail: `${platformPostId} is no longer in ${address.did}'s repository` }))
            ),
            Effect.zipRight(
              write(send({
                kind: "publish",
                request: procedure(apiBaseUrl, "com.atproto.repo.deleteRecord", addressParams(address), session.accessJwt),
                reply: Nothing
              }))
            ),
            Effect.asVoid
          ),
        noSession(account)
      )).pipe(Effect.mapError((failure) => failure._tag === "AlreadyGone" ? failure : toPublishError(failure)))
    }
  }
}

const addressParams = (address: { readonly did: string; readonly collection: string; readonly rkey: string }) => ({
  repo: address.did,
  collection: address.collection,
  rkey: address.rkey
})

/**
 * A write (createRecord, deleteRecord) that got no answer may have landed. A refusal stays an
 * XrpcRefused so that a refused session is renewed and the write tried once more.
 */
const write = <A, R>(call: Effect.Effect<A, XrpcFailure, R>) =>
  Effect.catchTag(call, "XrpcNoAnswer", (failure) => Effect.fail(new OutcomeUnknown({ detail: failure.detail })))

const toPublishError = (failure: XrpcFailure | PublishFailed | OutcomeUnknown): PublishFailed | OutcomeUnknown =>
  failure._tag === "XrpcRefused" || failure._tag === "XrpcNoAnswer" ? publishFailed(failure) : failure
