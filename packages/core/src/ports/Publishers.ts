import { Context, Effect, Layer, type Option, Schema } from "effect"
import type { SocialAccount } from "../Account.js"
import type { DeliveryNote } from "../Delivery.js"
import { DeliveryError } from "../DeliveryError.js"
import type { Media } from "../Media.js"
import type { PlatformConfigurations } from "../platforms/Registry.js"
import { byRoute, type RouteAdapters } from "./RouteAdapters.js"

/** Everything a publisher needs to put one delivery on its platform. */
export interface PublishRequest {
  readonly account: SocialAccount
  /** The final text: caption (or the platform override) with the signature, or null when none prints. */
  readonly text: string | null
  readonly media: ReadonlyArray<Media>
  readonly configuration: PlatformConfigurations[keyof PlatformConfigurations]
  /** Herald's mark on the post (the delivery id), so an unknown outcome can be looked up later. */
  readonly marker: string
}

export interface Published {
  readonly platformPostId: string
  readonly url: string
  readonly note: DeliveryNote | null
  /**
   * The other posts this publish made beside the main one (X's thread follow-ups and first
   * comment), in the order they were made: a takedown removes them too. Absent: none.
   */
  readonly followUpPostIds?: ReadonlyArray<string>
}

/** The platform refused or failed. transient failures are retried with backoff. */
export class PublishFailed extends Schema.TaggedError<PublishFailed>()("PublishFailed", {
  error: DeliveryError,
  transient: Schema.Boolean,
  retryAfterMs: Schema.NullOr(Schema.Number)
}) {}

/** The call ended without an answer (timeout, dropped connection): the post may or may not exist. */
export class OutcomeUnknown extends Schema.TaggedError<OutcomeUnknown>()("OutcomeUnknown", {
  detail: Schema.String
}) {}

/**
 * A takedown found no live post with that id: removed on the platform already, perhaps by an
 * earlier call whose answer was lost.
 */
export class AlreadyGone extends Schema.TaggedError<AlreadyGone>()("AlreadyGone", {
  detail: Schema.String
}) {}

/**
 * Publishing to one network through one connection route. Each ability beside publishing is
 * present exactly when the route offers it, and a caller asks for one by its presence: a route
 * whose platform deletes nothing has no takedown, rather than one that only refuses.
 */
export interface Publisher {
  readonly publish: (request: PublishRequest) => Effect.Effect<Published, PublishFailed | OutcomeUnknown>
  /**
   * Finds the post carrying the marker, if the platform holds one. Absent: the route cannot look
   * posts up, so an unknown outcome cannot be confirmed.
   */
  readonly reconcile?: (request: PublishRequest) => Effect.Effect<Option.Option<Published>, PublishFailed | OutcomeUnknown>
  /**
   * Removes the post, and first the follow-ups its publish made (Published.followUpPostIds), if
   * any. Absent: the platform lets this route delete nothing.
   */
  readonly takedown?: (
    account: SocialAccount,
    platformPostId: string,
    followUpPostIds?: ReadonlyArray<string>
  ) => Effect.Effect<void, PublishFailed | OutcomeUnknown | AlreadyGone>
  /**
   * The handles among `handles` the platform does not know (people tags are confirmed before a
   * photo is stored with them). Absent: the route cannot look handles up.
   */
  readonly unknownHandles?: (
    account: SocialAccount,
    handles: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<string>, PublishFailed | OutcomeUnknown>
}

/**
 * The publisher of each (platform, route) this build serves. An account on any other route gets
 * one that refuses to publish and to look posts up, saying so, so its deliveries fail with a
 * reason on their receipts; it has no takedown.
 */
export class Publishers extends Context.Tag("@herald/core/Publishers")<Publishers, {
  readonly forAccount: (account: SocialAccount) => Publisher
}>() {
  static readonly layer = (adapters: ReadonlyArray<RouteAdapters>): Layer.Layer<Publishers> =>
    Layer.sync(Publishers, () => {
      const publisherOf = byRoute(adapters, (entry) => entry.publisher)
      const unavailable = routeUnavailable(adapters)
      return Publishers.of({ forAccount: (account) => publisherOf(account) ?? unavailable })
    })
}

const routeUnavailable = (adapters: ReadonlyArray<RouteAdapters>): Publisher => {
  const refuse = (account: SocialAccount) => {
    const served = adapters.filter((entry) => entry.platform === account.platform).map((entry) => entry.route)
    return new PublishFailed({
      error: {
        category: "permission_missing",
        code: "route_unavailable",
        message: `${account.platform}:${account.username} is connected through the ${account.route} route, which this build cannot publish to yet; ${
          served.length === 0 ? `this build publishes to no ${account.platform} route` : `connect it through the ${served.join(" or ")} route`
        }`
      },
      transient: false,
      retryAfterMs: null
    })
  }
  return {
    publish: (request) => Effect.fail(refuse(request.account)),
    // Refusing rather than absent (which fails an unknown outcome at once): the delivery is looked
    // up again later, and a build that serves the route by then answers.
    reconcile: (request) => Effect.fail(refuse(request.account))
  }
}
