import { describe, expect, it } from "@effect/vitest"
import {
  AccountId,
  attachUpload,
  issueUploadTicket,
  MediaIngest,
  MediaIngestLive,
  MediaProbe,
  MediaRejected,
  MediaSource,
  MediaStaging,
  MediaStorage,
  MediaTooLarge,
  noDetails,
  PeopleTagCheck,
  Principal,
  SocialAccount,
  type StagedFile,
  UnsupportedMedia,
  uploadMedia,
  UploadTickets
} from "@herald/core"
import { Deferred, Effect, Either, Layer, Option, Stream, TestClock } from "effect"
import { makeWorld } from "./World.js"

/**
 * Byte-level fakes: a staged file is a map entry, the "probe" reads a 3-byte signature, the
 * "bucket" is a map of direct uploads.
 */
const makeMediaFakes = () => {
  const staged = new Map<string, Uint8Array>()
  const kept = new Map<string, Uint8Array>()
  const bucket = new Map<string, Uint8Array>()
  const remote = new Map<string, Uint8Array>()
  let next = 0
  const stageBytes = (bytes: Uint8Array, filename: string | null) =>
    Effect.acquireRelease(
      Effect.sync((): StagedFile => {
        const location = `staged-${++next}`
        staged.set(location, bytes)
        return { location, bytes: bytes.length, filename }
      }),
      (file) => Effect.sync(() => staged.delete(file.location))
    )
  const staging = MediaStaging.of({
    stage: (stream, { filename, maxBytes }) =>
      Stream.runFold(stream, new Uint8Array(0), (all, chunk) => new Uint8Array([...all, ...chunk])).pipe(
        Effect.filterOrFail((bytes) => bytes.length <= maxBytes, () => new MediaTooLarge({ maxBytes })),
        Effect.flatMap((bytes) => stageBytes(bytes, filename))
      ),
    fetch: (url) => {
      const bytes = remote.get(url)
      return bytes === undefined
        ? Effect.fail(new MediaRejected({ url, reason: "the host did not answer" }))
        : stageBytes(bytes, null)
    }
  })
  const signature = (file: StagedFile) => new TextDecoder().decode(staged.get(file.location)!.subarray(0, 3))
  const probe = MediaProbe.of({
    inspect: (file) => {
      switch (signature(file)) {
        case "PNG":
          return Effect.succeed({ kind: "image" as const, mime: "image/png", width: 4, height: 3, durationSeconds: null, codec: "png" })
        case "MP4":
          return Effect.succeed({ kind: "video" as const, mime: "video/mp4", width: 64, height: 48, durationSeconds: 2.5, codec: "h264" })
        case "PDF":
          return Effect.succeed({ kind: "document" as const, mime: "application/pdf", width: null, height: null, durationSeconds: null, codec: null })
        default:
          return Effect.fail(new UnsupportedMedia({ detected: null, reason: "not an image, video or PDF" }))
      }
    }
  })
  const storage = MediaStorage.of({
    keep: (key, file) => Effect.sync(() => void kept.set(key, staged.get(file.location)!)),
    remove: (key) => Effect.sync(() => void kept.delete(key)),
    read: (key) => Effect.sync(() => Option.fromNullable(kept.get(key))),
    configured: true,
    uploadForm: (slot) => Effect.succeed(Option.some({ url: "https://bucket.test/", fields: { key: slot.key } })),
    takeUpload: (slot) => {
      const bytes = bucket.get(slot.key)
      if (bytes === undefined) return Effect.succeed(Option.none())
      bucket.delete(slot.key)
      return Effect.map(stageBytes(bytes, null), Option.some)
    }
  })
  const layer = Layer.mergeAll(
    Layer.succeed(MediaStaging, staging),
    Layer.succeed(MediaProbe, probe),
    Layer.succeed(MediaStorage, storage),
    UploadTickets.inMemory()
  )
  return { staged, kept, bucket, remote, probe, layer }
}

const bytes = (text: string) => new TextEncoder().encode(text)

const setup = (options: { readonly tagCheck?: Layer.Layer<PeopleTagCheck>; readonly instagramRoute?: "direct" | "simulator" } = {}) => {
  const world = makeWorld({ approval: "autopilot", platforms: ["x"] })
  const instagram = new SocialAccount({
    id: AccountId.make("20000000-0000-4000-8000-0000000000aa"),
    projectId: world.projectId,
    platform: "instagram",
    username: "acme_ig",
    route: options.instagramRoute ?? "simulator",
    status: "active"
  })
  world.data.accounts.set(instagram.id, instagram)
  const fakes = makeMediaFakes()
  const layer = Layer.mergeAll(world.layer, fakes.layer, options.tagCheck ?? PeopleTagCheck.fromDirectory(["alice", "bob.b"]))
  const staged = (text: string) =>
    Effect.flatMap(MediaStaging, (staging) => staging.stage(Stream.make(bytes(text)), { maxBytes: 1000, filename: "a.bin" }))
  return { world, fakes, layer, staged }
}

const tagOf = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), Either.match({ onLeft: (e) => e._tag, onRight: () => "ok" }))

describe("uploadMedia", () => {
  it.effect("keeps a staged file with the facts read from its bytes, never from its name", () => {
    const { world, fakes, layer, staged } = setup()
    return Effect.gen(function*() {
      const media = yield* Effect.scoped(Effect.flatMap(staged("PNG..."), (file) =>
        uploadMedia(world.human, MediaSource.File({ file }), { ...noDetails, altText: "a cat" })))
      expect(media).toMatchObject({ kind: "image", mime: "image/png", width: 4, height: 3, bytes: 6, altText: "a cat", filename: "a.bin" })
      expect(media.storageKey).toBe(`media/${world.projectId}/${media.id}`)
      expect(world.data.media.get(media.id)).toEqual(media)
      expect(fakes.kept.has(media.storageKey)).toBe(true)
      expect(fakes.staged.size).toBe(0)
      const refused = yield* Effect.flip(Effect.scoped(Effect.flatMap(staged("GIF89a"), (file) =>
        uploadMedia(world.human, MediaSource.File({ file }), noDetails))))
      expect(refused._tag).toBe("UnsupportedMedia")
      expect(fakes.kept.size).toBe(1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("fetches URLs through staging and refuses a key without posts:write before anything", () => {
    const { world, fakes, layer } = setup()
    fakes.remote.set("https://cdn.test/clip.mp4", bytes("MP4 video"))
    const reader = new Principal({ ...world.human, scopes: ["posts:read"] })
    return Effect.gen(function*() {
      const media = yield* uploadMedia(world.human, MediaSource.Url({ url: "https://cdn.test/clip.mp4" }), noDetails)
      expect(media).toMatchObject({ kind: "video", durationSeconds: 2.5 })
      expect(yield* tagOf(uploadMedia(world.human, MediaSource.Url({ url: "https://cdn.test/missing" }), noDetails))).toBe(
        "MediaRejected"
      )
      const forbidden = yield* Effect.flip(uploadMedia(reader, MediaSource.Url({ url: "https://cdn.test/clip.mp4" }), noDetails))
      expect(forbidden).toMatchObject({ _tag: "MissingScope", scope: "posts:write" })
      expect(world.data.media.size).toBe(1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("refuses a video thumbnail past the end of the video", () => {
    const { world, fakes, layer } = setup()
    fakes.remote.set("https://cdn.test/clip.mp4", bytes("MP4 video"))
    return Effect.gen(function*() {
      const refused = yield* Effect.flip(uploadMedia(world.human, MediaSource.Url({ url: "https://cdn.test/clip.mp4" }), {
        ...noDetails,
        thumbnailTimestampMs: 2501
      }))
      expect(refused.message).toBe("thumbnail_timestamp_ms 2501 is past the end of the video (2500 ms)")
      const kept = yield* uploadMedia(world.human, MediaSource.Url({ url: "https://cdn.test/clip.mp4" }), {
        ...noDetails,
        thumbnailTimestampMs: 2500
      })
      expect(kept.thumbnailTimestampMs).toBe(2500)
    }).pipe(Effect.provide(layer))
  })
})

describe("people_tags", () => {
  const tagged = (handles: ReadonlyArray<string>) => ({ ...noDetails, peopleTags: handles })

  it.effect("checks every handle before storing and keeps them normalised on the row", () => {
    const { world, fakes, layer } = setup()
    fakes.remote.set("https://cdn.test/a.png", bytes("PNG"))
    return Effect.gen(function*() {
      const unknown = yield* Effect.flip(uploadMedia(world.human, MediaSource.Url({ url: "https://cdn.test/a.png" }), tagged(["@Alice", "ghost", "nobody"])))
      expect(unknown).toMatchObject({ _tag: "PeopleTagsUnconfirmed", unknown: ["ghost", "nobody"] })
      expect(world.data.media.size).toBe(0)
      expect(fakes.kept.size).toBe(0)
      const media = yield* uploadMedia(world.human, MediaSource.Url({ url: "https://cdn.test/a.png" }), tagged(["@Alice", "bob.b", "alice"]))
      expect(media.peopleTags).toEqual(["alice", "bob.b"])
    }).pipe(Effect.provide(layer))
  })

  it.effect("stores a tagged video untagged and says which id it got", () => {
    const { world, fakes, layer } = setup()
    fakes.remote.set("https://cdn.test/clip.mp4", bytes("MP4"))
    return Effect.gen(function*() {
      const refused = yield* Effect.flip(uploadMedia(world.human, MediaSource.Url({ url: "https://cdn.test/clip.mp4" }), tagged(["alice"])))
      if (refused._tag !== "PeopleTagsNeedImage") throw new Error(`unexpected ${refused._tag}`)
      expect(world.data.media.get(refused.mediaId)).toMatchObject({ kind: "video", peopleTags: [] })
    }).pipe(Effect.provide(layer))
  })

  it.effect("is unavailable without an instagram account that can tag, or without a handle lookup", () => {
    const direct = setup({ instagramRoute: "direct" })
    const unchecked = setup({ tagCheck: PeopleTagCheck.notConfigured })
    const url = MediaSource.Url({ url: "https://cdn.test/a.png" })
    return Effect.gen(function*() {
      const noAccount = yield* Effect.flip(uploadMedia(direct.world.human, url, tagged(["alice"]))).pipe(Effect.provide(direct.layer))
      expect(noAccount.message).toBe(
        "people_tags cannot be used: no active instagram account of this project is connected through a route that advertises can.people_tags"
      )
      const noLookup = yield* Effect.flip(uploadMedia(unchecked.world.human, url, tagged(["alice"]))).pipe(Effect.provide(unchecked.layer))
      expect(noLookup.message).toBe("people_tags cannot be used: handle checking is not configured for instagram:acme_ig")
    })
  })
})

describe("upload tickets", () => {
  it.effect("issues a slot with a form, redeems the bucket object once, and deletes it", () => {
    const { world, fakes, layer } = setup()
    return Effect.gen(function*() {
      const issued = yield* issueUploadTicket(world.human)
      expect(issued.ticket.ticket).toMatch(/^upl_[0-9a-f]{32}$/)
      expect(issued.expiresInSeconds).toBe(600)
      expect(Option.getOrThrow(issued.form).fields).toEqual({ key: `uploads/${issued.ticket.ticket}` })
      const redeem = uploadMedia(world.human, MediaSource.Ticket({ ticket: issued.ticket.ticket }), noDetails)
      expect((yield* Effect.flip(redeem)).message).toBe(
        "nothing was uploaded to this ticket yet; post the file to its url or attach_url first"
      )
      fakes.bucket.set(issued.ticket.storageKey, bytes("PDF-1.4"))
      expect((yield* redeem).kind).toBe("document")
      expect(fakes.bucket.size).toBe(0)
      expect((yield* Effect.flip(redeem)).message).toBe("this upload ticket was already claimed")
    }).pipe(Effect.provide(layer))
  })

  it.effect("refuses an expired ticket and one from another project", () => {
    const { world, fakes, layer } = setup()
    const stranger = new Principal({ ...world.human, projectId: world.projectId.replace(/1$/, "2") as typeof world.projectId })
    return Effect.gen(function*() {
      const issued = yield* issueUploadTicket(world.human)
      fakes.bucket.set(issued.ticket.storageKey, bytes("PNG"))
      const redeem = (principal: Principal) => uploadMedia(principal, MediaSource.Ticket({ ticket: issued.ticket.ticket }), noDetails)
      expect((yield* Effect.flip(redeem(stranger))).message).toBe("no such upload ticket in this project")
      yield* TestClock.adjust("600 seconds")
      const expired = yield* Effect.flip(redeem(world.human))
      expect(expired.message).toBe(
        "this upload ticket expired at 1970-01-01T00:10:00.000Z; ask POST /media/ticket for a new one"
      )
      expect(fakes.bucket.size).toBe(1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("attaches a browser upload with the ticket alone, once", () => {
    const { world, layer, staged } = setup()
    return Effect.gen(function*() {
      const { ticket } = yield* issueUploadTicket(world.human)
      const attach = Effect.scoped(Effect.flatMap(staged("PNG"), (file) => attachUpload(ticket.ticket, file, noDetails)))
      const media = yield* attach
      expect(media.projectId).toBe(world.projectId)
      expect(yield* tagOf(attach)).toBe("TicketNotFound")
      expect(yield* tagOf(Effect.scoped(Effect.flatMap(staged("PNG"), (file) => attachUpload("upl_nope", file, noDetails))))).toBe(
        "TicketNotFound"
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("a refused file leaves the slot open: the next try on the same ticket is kept, and claims it", () => {
    const { world, layer, staged } = setup()
    return Effect.gen(function*() {
      const { ticket } = yield* issueUploadTicket(world.human)
      const attach = (text: string, details = noDetails) =>
        tagOf(Effect.scoped(Effect.flatMap(staged(text), (file) => attachUpload(ticket.ticket, file, details))))
      expect(yield* attach("GIF89a")).toBe("UnsupportedMedia")
      expect(yield* attach("MP4", { ...noDetails, thumbnailTimestampMs: 9000 })).toBe("ThumbnailOutOfRange")
      expect(yield* attach("PNG", { ...noDetails, peopleTags: ["ghost"] })).toBe("PeopleTagsUnconfirmed")
      expect(world.data.media.size).toBe(0)
      expect(yield* attach("PNG")).toBe("ok")
      expect(world.data.media.size).toBe(1)
      const again = yield* Effect.flip(Effect.scoped(Effect.flatMap(staged("PNG"), (file) => attachUpload(ticket.ticket, file, noDetails))))
      expect(again).toMatchObject({ _tag: "TicketNotFound", reason: "claimed" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a tagged video kept untagged at the attach URL claims the ticket: the file was stored", () => {
    const { world, layer, staged } = setup()
    return Effect.gen(function*() {
      const { ticket } = yield* issueUploadTicket(world.human)
      const attach = (text: string, details: typeof noDetails) =>
        Effect.scoped(Effect.flatMap(staged(text), (file) => attachUpload(ticket.ticket, file, details)))
      const refused = yield* Effect.flip(attach("MP4", { ...noDetails, peopleTags: ["alice"] }))
      if (refused._tag !== "PeopleTagsNeedImage") throw new Error(`unexpected ${refused._tag}`)
      expect(world.data.media.get(refused.mediaId)).toMatchObject({ kind: "video", peopleTags: [] })
      expect(yield* Effect.flip(attach("PNG", noDetails))).toMatchObject({ _tag: "TicketNotFound", reason: "claimed" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a refused bucket object is deleted and leaves the ticket unclaimed: a new upload to the slot is redeemed", () => {
    const { world, fakes, layer } = setup()
    return Effect.gen(function*() {
      const { ticket } = yield* issueUploadTicket(world.human)
      const redeem = uploadMedia(world.human, MediaSource.Ticket({ ticket: ticket.ticket }), noDetails)
      fakes.bucket.set(ticket.storageKey, bytes("hello"))
      expect(yield* tagOf(redeem)).toBe("UnsupportedMedia")
      expect(fakes.bucket.size).toBe(0)
      expect(yield* Effect.flip(redeem)).toMatchObject({ _tag: "TicketNotFound", reason: "empty" })
      fakes.bucket.set(ticket.storageKey, bytes("PNG"))
      expect((yield* redeem).kind).toBe("image")
      expect(yield* Effect.flip(redeem)).toMatchObject({ _tag: "TicketNotFound", reason: "claimed" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("two uploads racing to one ticket, both inspected before either is kept: one media item, the other claimed", () => {
    const { world, fakes, layer, staged } = setup()
    return Effect.gen(function*() {
      // Each inspection waits for the other to start, so both files pass inspection before either claims.
      const bothInspecting = yield* Deferred.make<void>()
      let inspecting = 0
      const gated = MediaProbe.of({
        inspect: (file) =>
          Effect.suspend(() => ++inspecting === 2 ? Deferred.succeed(bothInspecting, undefined) : Effect.void).pipe(
            Effect.zipRight(Deferred.await(bothInspecting)),
            Effect.zipRight(fakes.probe.inspect(file))
          )
      })
      const { ticket } = yield* issueUploadTicket(world.human)
      const attach = Effect.either(Effect.scoped(Effect.flatMap(staged("PNG"), (file) => attachUpload(ticket.ticket, file, noDetails))))
      const outcomes = yield* Effect.all([attach, attach], { concurrency: 2 }).pipe(Effect.provideService(MediaProbe, gated))
      expect(inspecting).toBe(2)
      expect(outcomes.filter(Either.isRight)).toHaveLength(1)
      expect(outcomes.filter(Either.isLeft).map((outcome) => outcome.left)).toEqual([
        expect.objectContaining({ _tag: "TicketNotFound", reason: "claimed" })
      ])
      expect(world.data.media.size).toBe(1)
      expect(fakes.kept.size).toBe(1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("is unavailable when no storage is configured", () => {
    const { world, layer } = setup()
    return Effect.gen(function*() {
      const refused = yield* Effect.flip(issueUploadTicket(world.human))
      expect(refused._tag).toBe("MediaStorageUnavailable")
    }).pipe(Effect.provide(Layer.merge(layer, MediaStorage.unconfigured)))
  })
})

describe("MediaIngestLive", () => {
  it.effect("turns media_urls into rows and every refusal into a MediaRejected naming the URL", () => {
    const { world, fakes, layer } = setup()
    fakes.remote.set("https://cdn.test/a.png", bytes("PNG"))
    fakes.remote.set("https://cdn.test/a.txt", bytes("hello"))
    return Effect.gen(function*() {
      const ingest = yield* MediaIngest
      expect((yield* ingest.fromUrl(world.projectId, "https://cdn.test/a.png")).kind).toBe("image")
      expect(yield* Effect.flip(ingest.fromUrl(world.projectId, "https://cdn.test/a.txt"))).toMatchObject({
        _tag: "MediaRejected",
        url: "https://cdn.test/a.txt",
        reason: "not an image, video or PDF"
      })
    }).pipe(Effect.provide(MediaIngestLive.pipe(Layer.provideMerge(layer))))
  })
})
