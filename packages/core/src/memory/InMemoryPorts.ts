import { Effect, Layer, Option } from "effect"
import { ApprovalLinks } from "../ports/ApprovalLinks.js"
import { IdGenerator } from "../ports/IdGenerator.js"
import { MediaIngest, MediaRejected } from "../ports/MediaIngest.js"
import { AlreadyGone, type Published, type Publisher, Publishers } from "../ports/Publishers.js"

/** Sequential UUIDs (valid v4 layout), so test output is reproducible. */
export const sequentialIds = (): Layer.Layer<IdGenerator> => {
  let next = 0
  return Layer.succeed(IdGenerator, IdGenerator.of({
    uuid: Effect.sync(() => `00000000-0000-4000-8000-${(++next).toString(16).padStart(12, "0")}`)
  }))
}

export const plainApprovalLinks: Layer.Layer<ApprovalLinks> = Layer.succeed(ApprovalLinks, ApprovalLinks.of({
  urlFor: (post) => Effect.succeed(`https://herald.test/approve/${post.id}`),
  channelUrlFor: (post, message) => Effect.succeed(`https://herald.test/approve/${post.id}/${message}`)
}))

/** No URL ingestion configured: every media_urls entry is refused with a reason. */
export const noMediaIngest: Layer.Layer<MediaIngest> = Layer.succeed(MediaIngest, MediaIngest.of({
  fromUrl: (_projectId, url) => Effect.fail(new MediaRejected({ url, reason: "fetching media from URLs is not configured here" }))
}))

/**
 * A publisher that accepts everything and remembers what it holds, so takedowns and
 * reconciliation can be checked against it.
 */
export class RecordingPublisher implements Publisher {
  readonly live = new Map<string, Published>()
  readonly takenDown: Array<string> = []
  private next = 0

  readonly publish: Publisher["publish"] = (request) =>
    Effect.sync(() => {
      const platformPostId = `${request.account.platform}-${++this.next}`
      const published = { platformPostId, url: `https://${request.account.platform}.test/p/${platformPostId}`, note: null }
      this.live.set(request.marker, published)
      return published
    })

  readonly reconcile: NonNullable<Publisher["reconcile"]> = (request) => Effect.sync(() => Option.fromNullable(this.live.get(request.marker)))

  readonly takedown: NonNullable<Publisher["takedown"]> = (_account, platformPostId) =>
    this.takenDown.includes(platformPostId)
      ? Effect.fail(new AlreadyGone({ detail: `no live post ${platformPostId}` }))
      : Effect.sync(() => void this.takenDown.push(platformPostId))
}

export const publishersOf = (publisher: Publisher): Layer.Layer<Publishers> =>
  Layer.succeed(Publishers, Publishers.of({ forAccount: () => publisher }))
