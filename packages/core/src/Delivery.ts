import { type DateTime, Schema } from "effect"
import { DeliveryError } from "./DeliveryError.js"
import { AccountId, ApiKeyId, DeliveryId, PostId, ProjectId } from "./Ids.js"
import { Platform } from "./Platform.js"
import { ActorKind, type Principal, Surface } from "./Principal.js"

/**
 * - pending: written with its post, not released yet (held, draft, rejected or not due)
 * - queued: due; waiting for a worker (also after a retry or a transient failure)
 * - publishing: a worker recorded its intent and is calling the platform
 * - unknown: the platform call timed out or the worker died mid-call; reconciled before any retry
 * - success: the platform holds the post (url and platform id recorded)
 * - failed: gave up; error says why
 * - taken_down: went out, then removed from the platform on request
 */
export const DeliveryStatus = Schema.Literal(
  "pending",
  "queued",
  "publishing",
  "unknown",
  "success",
  "failed",
  "taken_down"
)
export type DeliveryStatus = typeof DeliveryStatus.Type

/** What the platform did with the post beyond publishing it. kind null: something was left behind. */
export const DeliveryNote = Schema.Struct({
  text: Schema.String,
  kind: Schema.NullOr(Schema.Literal("info"))
})
export type DeliveryNote = typeof DeliveryNote.Type

export const AttemptOutcome = Schema.Literal("success", "failed", "unknown", "reconciled")

export const Attempt = Schema.Struct({
  number: Schema.Int,
  startedAt: Schema.DateTimeUtc,
  finishedAt: Schema.NullOr(Schema.DateTimeUtc),
  outcome: Schema.NullOr(AttemptOutcome),
  error: Schema.NullOr(DeliveryError)
})
export type Attempt = typeof Attempt.Type

/**
 * Who took the post down and when, on a taken_down delivery. On a success delivery: a takedown
 * under way (recorded before the platform call), which holds the delivery against other takedowns
 * until the platform answers or the intent's lease lapses (usecases/TakedownDelivery.ts).
 */
export const Takedown = Schema.Struct({
  by: ApiKeyId,
  /** The key's name, kind and surface; null on takedowns recorded before migration 0018. */
  byName: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  kind: Schema.optionalWith(Schema.NullOr(ActorKind), { default: () => null }),
  surface: Schema.optionalWith(Schema.NullOr(Surface), { default: () => null }),
  at: Schema.DateTimeUtc
})
export type Takedown = typeof Takedown.Type

export const takedownBy = (principal: Principal, at: DateTime.Utc): Takedown => ({
  by: principal.keyId,
  byName: principal.keyName,
  kind: principal.kind,
  surface: principal.surface,
  at
})

export class Delivery extends Schema.Class<Delivery>("Delivery")({
  id: DeliveryId,
  postId: PostId,
  projectId: ProjectId,
  accountId: AccountId,
  platform: Platform,
  username: Schema.String,
  status: DeliveryStatus,
  /** When a worker may take it: null while pending; the backoff time after a transient failure. */
  dueAt: Schema.NullOr(Schema.DateTimeUtc),
  url: Schema.NullOr(Schema.String),
  platformPostId: Schema.NullOr(Schema.String),
  /** The other posts the publish made beside the main one (a thread's follow-ups), for the takedown. */
  followUpPostIds: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  error: Schema.NullOr(DeliveryError),
  note: Schema.NullOr(DeliveryNote),
  attempts: Schema.Array(Attempt),
  takedown: Schema.NullOr(Takedown),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {
  /** Retries after the first attempt. */
  get retries(): number {
    return Math.max(this.attempts.length - 1, 0)
  }

  get wentOut(): boolean {
    return this.status === "success" || this.status === "taken_down"
  }

  /** Final: nothing more happens to it unless a person retries or takes it down. */
  get settled(): boolean {
    return this.status === "success" || this.status === "failed" || this.status === "taken_down"
  }

  /**
   * A copy with some fields changed. Not validated again: this is a valid Delivery and the changes are
   * typed domain values, and checking the whole class on every copy was a measurable share of the
   * dispatcher's CPU. Built the way the class's constructor ends (its fields assigned onto its
   * prototype, as Data.Class does), without the constructor's copy of the fields and its pass over
   * them for defaults (it has none): the dispatcher copies it twice per delivery.
   */
  with(changes: Partial<Schema.Struct.Type<typeof Delivery.fields>>): Delivery {
    return Object.assign(Delivery.fromValid(this), changes)
  }

  /**
   * A Delivery from fields known to be valid (a row the storage checked), built as `with` builds its
   * copies: the constructor's copy of the fields and its pass for defaults cost more than the rest
   * of decoding the row.
   */
  static fromValid(fields: Schema.Struct.Type<typeof Delivery.fields>): Delivery {
    return Object.assign(Object.create(Delivery.prototype) as Delivery, fields)
  }
}
