import { Context, type Effect, type Option } from "effect"

/**
 * What a publisher wrote down part-way through a delivery, before waiting on the platform: the
 * id of a media container it created (Meta's container flow), so that an attempt cut short (a
 * crash, a deadline) resumes on that container instead of creating a second one. Keyed by the
 * delivery (PublishRequest.marker); one value per delivery, replaced when a publisher records a
 * new one, dropped with the delivery.
 */
export class PublishCheckpoints extends Context.Tag("@herald/core/PublishCheckpoints")<PublishCheckpoints, {
  readonly get: (deliveryId: string) => Effect.Effect<Option.Option<string>>
  readonly put: (deliveryId: string, value: string) => Effect.Effect<void>
  readonly clear: (deliveryId: string) => Effect.Effect<void>
}>() {}
