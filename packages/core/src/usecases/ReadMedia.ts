import { Effect, Option } from "effect"
import { requireScope } from "../Authorization.js"
import { MediaNotFound } from "../Errors.js"
import { isUuid, MediaId } from "../Ids.js"
import type { Media } from "../Media.js"
import type { Principal } from "../Principal.js"
import { MediaLibrary } from "../ports/MediaLibrary.js"
import { MediaStorage } from "../ports/MediaStorage.js"
import { traced } from "../Tracing.js"

/** One media row of the caller's project; another project's id is not found, as an unknown one is. */
const mediaOfProject = (principal: Principal, id: string) =>
  Effect.gen(function*() {
    yield* requireScope(principal, "posts:read")
    if (!isUuid(id)) return yield* new MediaNotFound({ mediaId: id })
    const found = yield* Effect.flatMap(MediaLibrary, (library) => library.getMany(principal.projectId, [MediaId.make(id)]))
    const media = found.find((item) => item.id === id && item.projectId === principal.projectId)
    if (media === undefined) return yield* new MediaNotFound({ mediaId: id })
    return media
  })

/** GET /media/{id}: the facts about a stored file. */
export const readMedia = traced("readMedia")(function*(principal: Principal, id: string) {
  return yield* mediaOfProject(principal, id)
})

/**
 * GET /media/content/{id}: the stored bytes with their row (type, size); not found when the row
 * is another project's or the storage no longer holds the bytes.
 */
export const readMediaContent = traced("readMediaContent")(function*(principal: Principal, id: string) {
  const media: Media = yield* mediaOfProject(principal, id)
  const bytes = yield* Effect.flatMap(MediaStorage, (storage) => storage.read(media.storageKey))
  if (Option.isNone(bytes)) return yield* new MediaNotFound({ mediaId: id })
  return { media, bytes: bytes.value }
})
