import type { Media } from "@herald/core"
import { Context, Effect, Option } from "effect"

/**
 * Where a platform that fetches media itself (Meta's container flow takes `image_url` and
 * `video_url`, never bytes) can download a stored item: a public https URL, for a while. None when
 * this Herald cannot hand one out; the publisher then refuses the media, saying so. The default
 * hands out none: no adapter of MediaStorage serves public URLs yet (docs/networks/threads.md).
 */
export class MediaUrls extends Context.Reference<MediaUrls>()("@herald/publishers/MediaUrls", {
  defaultValue: (): { readonly urlOf: (media: Media) => Effect.Effect<Option.Option<string>> } => ({
    urlOf: () => Effect.succeed(Option.none())
  })
}) {}
