import { Context, type Effect, Schema } from "effect"
import type { ProjectId } from "../Ids.js"
import type { Media } from "../Media.js"

/** The URL could not become a media row: unreachable, refused address, unsupported type, too large. */
export class MediaRejected extends Schema.TaggedError<MediaRejected>()("MediaRejected", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.url}: ${this.reason}`
  }
}

/** Fetches a public https URL into the project's media (bulk rows' media_urls, POST /media url). */
export class MediaIngest extends Context.Tag("@herald/core/MediaIngest")<MediaIngest, {
  readonly fromUrl: (projectId: ProjectId, url: string) => Effect.Effect<Media, MediaRejected>
}>() {}
