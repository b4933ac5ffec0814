/**
 * Publishing to Pinterest: one pin per board the post names (or the account's default board),
 * each pin recorded as it is made (PublishCheckpoints) so that a retry, or an attempt after a
 * crash, makes only the pins still missing. The receipt's post is the first pin; the others are
 * its follow-ups (a takedown removes them all), listed in an info note.
 */
import { HttpClientRequest } from "@effect/platform"
import {
  AlreadyGone,
  defaultBoard,
  type DeliveryNote,
  type KnownBoard,
  type Media,
  type PinterestConfiguration,
  PinterestBoards,
  type Published,
  type Publisher,
  PublishCheckpoints,
  type PublishRequest,
  type SocialAccount
} from "@herald/core"
import { Clock, type Context, Effect, Option, Schema } from "effect"
import { asPublish, type PlatformClient, PlatformRefusal } from "../kit/index.js"
import { api, pinUrl, send, sendJson } from "./PinterestApi.js"
import { refreshBoards } from "./PinterestBoardList.js"
import { makePinMedia } from "./PinterestMedia.js"
import { type Needs, type StoredToken, withToken } from "./PinterestToken.js"

type Configuration = typeof PinterestConfiguration.Type

/** What a delivery has made so far: its boards (fixed at the first attempt), its video's upload, and each board's pin. */
const Progress = Schema.Struct({
  boards: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String })),
  video: Schema.optional(Schema.String),
  pins: Schema.Record({ key: Schema.String, value: Schema.String })
})
type Progress = typeof Progress.Type
const ProgressJson = Schema.parseJson(Progress)

const Created = Schema.Struct({ id: Schema.String })
const BoardPins = Schema.Struct({
  items: Schema.Array(Schema.Struct({
    id: Schema.String,
    title: Schema.optional(Schema.NullOr(Schema.String)),
    description: Schema.optional(Schema.NullOr(Schema.String)),
    created_at: Schema.optional(Schema.String)
  }))
})

/** Pinterest's alt_text ceiling: a media item's own alt text stands in only when it fits. */
const altTextMax = 500
/** How far back reconcile looks: past the dispatcher's 24 hours of trying to confirm an outcome. */
const reconcileWindowMs = 25 * 60 * 60 * 1000

const configurationOf = (request: PublishRequest) => (request.configuration ?? {}) as Configuration

const refused = (category: "content_rejected" | "media_rejected", code: string, message: string) =>
  new PlatformRefusal({ error: { category, code, message }, retryAfterMs: null })

const altTextOf = (request: PublishRequest) =>
  configurationOf(request).alt_text ??
    request.media.find((item) => item.kind === "image" && item.altText !== null && [...item.altText].length <= altTextMax)?.altText ??
    undefined

/** The receipt's note: the other boards' pins (info), and the AI label Pinterest's API cannot take (left behind). */
const noteOf = (request: PublishRequest, pins: ReadonlyArray<{ readonly board: string; readonly pin: string }>): DeliveryNote | null => {
  const others = pins.slice(1).map(({ board, pin }) => `${board}: ${pinUrl(pin)}`)
  const info = others.length === 0 ? [] : [`also pinned to ${others.length === 1 ? "another board" : `${others.length} other boards`} (${others.join("; ")})`]
  if (configurationOf(request).is_ai_generated === true) {
    return {
      text: ["is_ai_generated left behind: Pinterest's API takes no AI label (Pinterest labels AI images from their metadata)", ...info].join("; "),
      kind: null
    }
  }
  return info.length === 0 ? null : { text: info.join("; "), kind: "info" }
}

export const pinterestPublisher = (client: PlatformClient, context: Context.Context<Needs>): Publisher => {
  const media = makePinMedia(client)

  const progressOf = (marker: string) =>
    Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.get(marker)).pipe(
      Effect.map(Option.flatMap(Schema.decodeUnknownOption(ProgressJson)))
    )
  const record = (marker: string, progress: Progress) =>
    Effect.flatMap(Schema.encode(ProgressJson)(progress), (text) => Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.put(marker, text))).pipe(Effect.orDie)

  /** The account's boards: as last read, or read now when never read. */
  const knownBoards = (request: PublishRequest, token: StoredToken) =>
    Effect.flatMap(PinterestBoards, (kept) => kept.get(request.account.id)).pipe(
      Effect.flatMap(Option.match({ onNone: () => refreshBoards(client, request.account, token), onSome: Effect.succeed }))
    )

  /** The boards the delivery pins to: board_ids as given (named from the account's list), else the default board. */
  const targetBoards = (request: PublishRequest, token: StoredToken) =>
    Effect.gen(function*() {
      const boards: ReadonlyArray<KnownBoard> = yield* knownBoards(request, token)
      const named = [...new Set(configurationOf(request).board_ids?.map((id) => id.trim()) ?? [])]
      if (named.length > 0) return named.map((id) => ({ id, name: boards.find((board) => board.id === id)?.name ?? id }))
      const fallback = defaultBoard(boards)
      if (fallback === undefined) {
        return yield* refused("content_rejected", "no_board", `pinterest:${request.account.username} has no board a pin can land on; create one on Pinterest or name one in board_ids`)
      }
      return [{ id: fallback.id, name: fallback.name }]
    })

  /** The pin's media_source, the video uploaded (once per delivery) and processed. */
  const mediaSource = (token: StoredToken, request: PublishRequest, progress: Progress) =>
    Effect.gen(function*() {
      const [first] = request.media
      if (first === undefined) return yield* refused("media_rejected", "media_required", "a pin needs an image or a video")
      if (first.kind === "video") {
        const video = progress.video ?? (yield* media.uploadVideo(token, first))
        if (progress.video === undefined) yield* record(request.marker, { ...progress, video })
        yield* media.processed(token, video)
        return {
          source: {
            source_type: "video_id",
            media_id: video,
            // Pinterest requires a cover; without a chosen frame it takes the first.
            cover_image_key_frame_time: Math.floor((first.thumbnailTimestampMs ?? 0) / 1000)
          },
          progress: { ...progress, video }
        }
      }
      const images = yield* Effect.forEach(request.media.filter((item: Media) => item.kind === "image"), media.image)
      return {
        source: images.length === 1
          ? { source_type: "image_base64", ...images[0] }
          : { source_type: "multiple_image_base64", items: images },
        progress
      }
    })

  const pinBody = (request: PublishRequest, board: string, source: unknown) => {
    const configuration = configurationOf(request)
    const alt = altTextOf(request)
    return {
      board_id: board,
      ...(configuration.title === undefined ? {} : { title: configuration.title }),
      ...(request.text === null ? {} : { description: request.text }),
      ...(configuration.link === undefined ? {} : { link: configuration.link }),
      ...(alt === undefined ? {} : { alt_text: alt }),
      media_source: source
    }
  }

  const publishOnce = (token: StoredToken, request: PublishRequest) =>
    Effect.gen(function*() {
      let progress: Progress = yield* Effect.flatMap(progressOf(request.marker), Option.match({
        onNone: () => Effect.map(targetBoards(request, token), (boards): Progress => ({ boards, pins: {} })),
        onSome: Effect.succeed
      }))
      if (Object.keys(progress.pins).length === 0) yield* record(request.marker, progress)
      const missing = progress.boards.filter((board) => progress.pins[board.id] === undefined)
      if (missing.length > 0) {
        const prepared = yield* mediaSource(token, request, progress)
        progress = prepared.progress
        for (const board of missing) {
          const pin = yield* sendJson(
            client.publish,
            api("POST", "pins", token.access_token).pipe(HttpClientRequest.bodyUnsafeJson(pinBody(request, board.id, prepared.source))),
            "pin",
            Created
          )
          progress = { ...progress, pins: { ...progress.pins, [board.id]: pin.id } }
          yield* record(request.marker, progress)
        }
      }
      return publishedOf(request, progress)
    })

  const publishedOf = (request: PublishRequest, progress: Progress): Published => {
    const pins = progress.boards.map((board) => ({ board: board.name, pin: progress.pins[board.id]! }))
    return {
      platformPostId: pins[0]!.pin,
      url: pinUrl(pins[0]!.pin),
      note: noteOf(request, pins),
      followUpPostIds: pins.slice(1).map(({ pin }) => pin)
    }
  }

  const publish = (request: PublishRequest) =>
    withToken(request.account, (token) => publishOnce(token, request)).pipe(asPublish, Effect.provide(context))

  /**
   * The delivery's pins, when every board has one: those recorded, and for each board without,
   * a recent pin of the board with the delivery's title and description (Pinterest keeps no field
   * of the caller's). Any board still without a pin: none, and the next attempt makes only that one.
   */
  const reconcile = (request: PublishRequest) =>
    withToken(request.account, (token) =>
      Effect.gen(function*() {
        const recorded = yield* progressOf(request.marker)
        if (Option.isNone(recorded)) return Option.none()
        let progress = recorded.value
        const since = (yield* Clock.currentTimeMillis) - reconcileWindowMs
        const title = configurationOf(request).title ?? null
        for (const board of progress.boards.filter((entry) => progress.pins[entry.id] === undefined)) {
          const page = yield* sendJson(client.read, api("GET", `boards/${encodeURIComponent(board.id)}/pins?page_size=50`, token.access_token), "read", BoardPins)
          const found = page.items.find((pin) =>
            (pin.created_at === undefined || Date.parse(pin.created_at) >= since) &&
            (pin.description ?? null) === request.text && (pin.title ?? null) === title &&
            !Object.values(progress.pins).includes(pin.id)
          )
          if (found === undefined) continue
          progress = { ...progress, pins: { ...progress.pins, [board.id]: found.id } }
          yield* record(request.marker, progress)
        }
        return progress.boards.every((board) => progress.pins[board.id] !== undefined)
          ? Option.some(publishedOf(request, progress))
          : Option.none()
      })).pipe(asPublish, Effect.provide(context))

  /** Deletes every pin of the delivery; a pin already gone counts as removed, all of them gone is AlreadyGone. */
  const takedown = (account: SocialAccount, platformPostId: string, followUpPostIds: ReadonlyArray<string> = []) =>
    withToken(account, (token) =>
      Effect.forEach([...followUpPostIds, platformPostId], (pin) =>
        send(client.publish, api("DELETE", `pins/${encodeURIComponent(pin)}`, token.access_token), "read").pipe(
          Effect.as(true),
          Effect.catchIf((failure) => failure._tag === "PlatformRefusal" && failure.error.category === "not_found", () => Effect.succeed(false))
        ))).pipe(
        asPublish,
        Effect.flatMap((removed) =>
          removed.some((pin) => pin)
            ? Effect.void
            : Effect.fail(new AlreadyGone({ detail: `Pinterest holds none of the pins ${[platformPostId, ...followUpPostIds].join(", ")}` }))
        ),
        Effect.provide(context)
      )

  return {
    publish,
    reconcile,
    takedown
  }
}
