/**
 * Publishing to Bluesky through the account's PDS: facets resolved, media uploaded as blobs, then
 * one com.atproto.repo.createRecord. Only createRecord and deleteRecord change anything visible;
 * a blob no record references is discarded by the PDS. So the calls before createRecord fail as
 * reads do (no answer: transient, nothing was posted), and only the writes can be OutcomeUnknown.
 */
import type { HttpClient } from "@effect/platform"
import { type AccountTokens, AlreadyGone, type Media, MediaStorage, type Publisher, type PublishRequest } from "@herald/core"
import { Array as Arr, Clock, type Context, DateTime, Effect, Option, Schema } from "effect"
import { asPublish, asRead, type PlatformCallError, type PlatformClient, PlatformRefusal } from "../kit/index.js"
import { cardText, linkPreview, thumbnail } from "./LinkCard.js"
import { embedOf, markerField, parseAtUri, postCollection, postRecord, postUrl, type UploadedMedia } from "./PostRecord.js"
import { candidates, facets, firstLink, mentionedHandles } from "./RichText.js"
import { type Session, withSession } from "./Session.js"
import { procedure, query, send, upload } from "./Xrpc.js"

const CreatedRecord = Schema.Struct({ uri: Schema.String, cid: Schema.String })
const ResolvedHandle = Schema.Struct({ did: Schema.String })
const UploadedBlob = Schema.Struct({ blob: Schema.Unknown })
const Listed = Schema.Struct({
  records: Schema.Array(Schema.Struct({ uri: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }))
})
const Anything = Schema.Unknown

/** What Bluesky's adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage

/** How many of the account's latest posts a reconcile looks through for the marker. */
const reconcileWindow = 100

/** Refused by Herald before Bluesky was asked, in the platform's terms. */
const refused = (category: "media_rejected" | "not_found", code: string, message: string) =>
  new PlatformRefusal({ error: { category, code, message }, retryAfterMs: null })

/** A call before the write: without an answer nothing was posted, so it fails as a read does (transient). */
const beforeWrite = <A, R>(effect: Effect.Effect<A, PlatformCallError, R>) =>
  Effect.mapError(asRead(effect), (failed) => new PlatformRefusal({ error: failed.error, retryAfterMs: failed.retryAfterMs }))

const checkMedia = (media: ReadonlyArray<Media>) => {
  const videos = media.filter((item) => item.kind === "video").length
  if (media.some((item) => item.kind === "document")) {
    return Effect.fail(refused("media_rejected", "documents_unsupported", "Bluesky posts carry no documents"))
  }
  if (videos > 1 || (videos === 1 && media.length > 1)) {
    return Effect.fail(refused("media_rejected", "media_mix_unsupported", "a Bluesky post carries up to 4 images or one video, not both"))
  }
  return Effect.void
}

export const blueskyPublisher = (client: PlatformClient, context: Context.Context<Needs>): Publisher => {
  /** A handle that resolves to no DID is left as plain text, as the Bluesky app does. */
  const resolveHandle = (session: Session, handle: string) =>
    beforeWrite(send(client, { kind: "read", request: query("com.atproto.identity.resolveHandle", { handle }, session.auth), reply: ResolvedHandle }))
      .pipe(
        Effect.map((resolved) => Option.some([handle, resolved.did] as const)),
        Effect.catchIf(
          (failure) => failure.error.code === "InvalidRequest",
          () => Effect.succeed(Option.none())
        )
      )

  const uploadOne = (session: Session, media: Media) =>
    Effect.gen(function*() {
      const stored = yield* (yield* MediaStorage).read(media.storageKey)
      if (Option.isNone(stored)) {
        return yield* refused("media_rejected", "media_missing", `media ${media.id} is no longer in Herald's storage`)
      }
      const uploaded = yield* beforeWrite(send(client, {
        kind: "upload",
        request: upload("com.atproto.repo.uploadBlob", stored.value, media.mime, session.auth),
        reply: UploadedBlob
      }))
      return { media, blob: uploaded.blob } satisfies UploadedMedia
    })

  /** A thumb that cannot be had leaves the card without one; the post does not fail for it. */
  const cardFor = (session: Session, link: string) =>
    Effect.gen(function*() {
      const summary = yield* linkPreview(link)
      const image = summary.image === null ? Option.none() : yield* thumbnail(summary.image)
      const thumb = yield* Option.match(image, {
        onNone: () => Effect.succeed(Option.none<unknown>()),
        onSome: ({ bytes, mime }) =>
          send(client, { kind: "upload", request: upload("com.atproto.repo.uploadBlob", bytes, mime, session.auth), reply: UploadedBlob })
            .pipe(Effect.map((uploaded) => Option.some(uploaded.blob)), Effect.orElseSucceed(() => Option.none<unknown>()))
      })
      return { ...cardText(link, summary), ...Option.match(thumb, { onNone: () => ({}), onSome: (blob) => ({ thumb: blob }) }) }
    })

  const compose = (session: Session, request: PublishRequest) =>
    Effect.gen(function*() {
      const text = request.text ?? ""
      const found = candidates(text)
      const resolved = yield* Effect.forEach(mentionedHandles(found), (handle) => resolveHandle(session, handle), { concurrency: 4 })
      const uploaded = yield* Effect.forEach(request.media, (media) => uploadOne(session, media))
      const link = firstLink(found)
      const card = link === null || request.media.length > 0 ? null : yield* cardFor(session, link)
      return postRecord({
        text,
        facets: facets(found, new Map(Arr.getSomes(resolved))),
        embed: embedOf(uploaded, card),
        createdAt: DateTime.formatIso(DateTime.unsafeMake(yield* Clock.currentTimeMillis)),
        marker: request.marker
      })
    })

  const published = (session: Session, uri: string) => ({
    platformPostId: uri,
    url: postUrl(session.handle, parseAtUri(uri)?.rkey ?? ""),
    note: null
  })

  const publish = (request: PublishRequest) =>
    asPublish(checkMedia(request.media).pipe(
      Effect.zipRight(withSession(request.account, (session) =>
        Effect.flatMap(compose(session, request), (record) =>
          send(client, {
            kind: "publish",
            request: procedure("com.atproto.repo.createRecord", { repo: session.did, collection: postCollection, record }, session.auth),
            reply: CreatedRecord
          })).pipe(Effect.map((created) => published(session, created.uri)))
      ))
    )).pipe(Effect.provide(context))

  const reconcile = (request: PublishRequest) =>
    asPublish(withSession(request.account, (session) =>
      send(client, {
        kind: "read",
        request: query("com.atproto.repo.listRecords", {
          repo: session.did,
          collection: postCollection,
          limit: String(reconcileWindow)
        }, session.auth),
        reply: Listed
      }).pipe(Effect.map((listed) =>
        Option.map(
          Option.fromNullable(listed.records.find((record) => record.value[markerField] === request.marker)),
          (record) => published(session, record.uri)
        )
      ))
    )).pipe(Effect.provide(context))

  const takedown: Publisher["takedown"] = (account, platformPostId) => {
    const address = parseAtUri(platformPostId)
    if (address === null) return asPublish(Effect.fail(refused("not_found", "InvalidUri", `${platformPostId} is not a Bluesky post's at-uri`)))
    const params = { repo: address.did, collection: address.collection, rkey: address.rkey }
    return asPublish(withSession(account, (session) =>
      // deleteRecord answers 200 for a record that is not there, so look first.
      beforeWrite(send(client, { kind: "read", request: query("com.atproto.repo.getRecord", params, session.auth), reply: Anything })).pipe(
        Effect.zipRight(send(client, { kind: "publish", request: procedure("com.atproto.repo.deleteRecord", params, session.auth), reply: Anything }))
      ))).pipe(
        Effect.asVoid,
        Effect.catchIf(
          (failure) => failure._tag === "PublishFailed" && failure.error.code === "RecordNotFound",
          () => Effect.fail(new AlreadyGone({ detail: `${platformPostId} is no longer in ${address.did}'s repository` }))
        ),
        Effect.provide(context)
      )
  }

  return { publish, reconcile, takedown }
}
