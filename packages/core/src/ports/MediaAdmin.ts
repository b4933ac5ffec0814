import { Context, type Effect } from "effect"
import type { MediaId, ProjectId } from "../Ids.js"
import type { Media } from "../Media.js"

/** Writing media rows (after an upload or URL ingest); MediaLibrary is the read side. */
export class MediaAdmin extends Context.Tag("@herald/core/MediaAdmin")<MediaAdmin, {
  readonly save: (media: Media) => Effect.Effect<void>
  /** False when the project holds no such media. */
  readonly remove: (projectId: ProjectId, id: MediaId) => Effect.Effect<boolean>
}>() {}
