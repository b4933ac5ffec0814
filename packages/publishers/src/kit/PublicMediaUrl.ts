import { type Media, MediaStorage } from "@herald/core"
import { Effect, Option } from "effect"
import { PlatformRefusal } from "./Failures.js"

/**
 * Where a platform that downloads media itself (Instagram, Threads, TikTok's PULL_FROM_URL) gets
 * an item: the media storage's public URL of it, or a refusal naming the item when the storage
 * hands out none (local disk). `what` names the item in the refusal.
 */
export const publicMediaUrl = (network: string, media: Media, what = "media"): Effect.Effect<string, PlatformRefusal, MediaStorage> =>
  Effect.flatMap(
    Effect.flatMap(MediaStorage, (storage) => storage.publicUrl === undefined ? Effect.succeed(Option.none<string>()) : storage.publicUrl(media.storageKey)),
    Option.match({
      onNone: () =>
        Effect.fail(
          new PlatformRefusal({
            error: {
              category: "media_rejected",
              code: "media_url_unavailable",
              message: `${network} downloads ${what} from a public URL and this Herald's media storage cannot hand one out for media ${media.id}; store media in a bucket (docs/media.md)`
            },
            retryAfterMs: null
          })
        ),
      onSome: Effect.succeed
    })
  )
