import { Context, type Effect } from "effect"
import type { MediaId, ProjectId } from "../Ids.js"
import type { Media } from "../Media.js"

/** Stored media rows (the facts about each file; the bytes live in a media storage adapter). */
export class MediaLibrary extends Context.Tag("@herald/core/MediaLibrary")<MediaLibrary, {
  /** The rows of this project among ids, in no particular order; unknown ids are absent. */
  readonly getMany: (projectId: ProjectId, ids: ReadonlyArray<MediaId>) => Effect.Effect<ReadonlyArray<Media>>
}>() {}
