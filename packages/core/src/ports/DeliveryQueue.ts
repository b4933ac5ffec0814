import { Context, type DateTime, type Effect, type Option, type Stream } from "effect"
import type { DeliveryId, PostId, ProjectId } from "../Ids.js"

export interface ClaimRequest {
  readonly now: DateTime.Utc
  readonly limit: number
  /** How long the claim holds; a worker that dies lets it lapse and another worker takes the work. */
  readonly leaseMillis: number
  /** The claiming worker's name, unique per process. */
  readonly worker: string
}

export interface RenewRequest {
  readonly now: DateTime.Utc
  readonly leaseMillis: number
  readonly worker: string
}

export interface ClaimedDelivery {
  readonly deliveryId: DeliveryId
  readonly postId: PostId
  readonly projectId: ProjectId
}

/**
 * Due deliveries handed to workers under expiring leases. Claimed: status queued or unknown with
 * dueAt passed, and also publishing whose lease lapsed (its worker died mid-call, so the outcome is
 * unknown and must be reconciled). Each delivery is held by at most one live lease.
 */
export class DeliveryQueue extends Context.Tag("@herald/core/DeliveryQueue")<DeliveryQueue, {
  readonly claimDue: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
  /** Extends the worker's lease; false when the worker no longer holds it. */
  readonly renew: (deliveryId: DeliveryId, request: RenewRequest) => Effect.Effect<boolean>
  readonly release: (deliveryId: DeliveryId, worker: string) => Effect.Effect<void>
  /**
   * When the earliest queued or unknown delivery falls due after `now`; none when nothing waits.
   * An idle dispatcher wakes then rather than at its next poll. (A lease that lapses is left to
   * the poll: that is a crashed worker's recovery, not a schedule.)
   */
  readonly nextDue: (now: DateTime.Utc) => Effect.Effect<Option.Option<DateTime.Utc>>
  /** Emits when new work may be due. Only a hint to poll early: polling stays the source of truth. */
  readonly wakeups: Stream.Stream<void>
}>() {}
