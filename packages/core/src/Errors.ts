import { Schema } from "effect"
import { DeliveryErrorCategory } from "./DeliveryError.js"
import { quote } from "./Echo.js"

/** One reason a create or edit was refused; field is a path such as platform_configurations.x.thread[2]. */
export const Violation = Schema.Struct({
  field: Schema.String,
  account: Schema.NullOr(Schema.String),
  message: Schema.String
})
export type Violation = typeof Violation.Type

export const describeViolation = (violation: Violation): string =>
  violation.account === null
    ? `${violation.field}: ${violation.message}`
    : `${violation.field} (${violation.account}): ${violation.message}`

export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()("ValidationFailed", {
  violations: Schema.Array(Violation)
}) {
  override get message(): string {
    return this.violations.map(describeViolation).join("; ")
  }
}

/**
 * platform_configurations names a key its platform does not have (a typo, another platform's key):
 * refused rather than dropped, each violation naming the path and the account.
 */
export class UnknownOption extends Schema.TaggedError<UnknownOption>()("UnknownOption", {
  violations: Schema.Array(Violation)
}) {
  override get message(): string {
    return this.violations.map(describeViolation).join("; ")
  }
}

/**
 * One rule broken. Beside the contract's rule and detail: the text field at fault (caption,
 * platform_configurations.x.thread[2]), and either the span of that text that broke it (a banned
 * word: UTF-16 offsets, end exclusive, and the text there) or the topic with the classifier's
 * score. posting_cap and the post-wide link count name no field.
 */
export const GuardrailViolation = Schema.Struct({
  rule: Schema.String,
  detail: Schema.String,
  field: Schema.optional(Schema.String),
  span: Schema.optional(Schema.Struct({ start: Schema.Int, end: Schema.Int, text: Schema.String })),
  topic: Schema.optional(Schema.String),
  score: Schema.optional(Schema.Number)
})
export type GuardrailViolation = typeof GuardrailViolation.Type

export class GuardrailBlocked extends Schema.TaggedError<GuardrailBlocked>()("GuardrailBlocked", {
  violations: Schema.Array(GuardrailViolation)
}) {
  override get message(): string {
    return `blocked by guardrails: ${this.violations.map((v) => `${v.rule}: ${v.detail}`).join("; ")}`
  }
}

export class PostNotFound extends Schema.TaggedError<PostNotFound>()("PostNotFound", {
  postId: Schema.String
}) {
  override get message(): string {
    return `post ${this.postId} not found in this project`
  }
}

/** An edit replaced this post: the caller should use the successor's id. */
export class PostSuperseded extends Schema.TaggedError<PostSuperseded>()("PostSuperseded", {
  postId: Schema.String,
  successorId: Schema.String
}) {
  override get message(): string {
    return `post ${this.postId} was edited and replaced by post ${this.successorId}`
  }
}

export class DeliveryNotFound extends Schema.TaggedError<DeliveryNotFound>()("DeliveryNotFound", {
  deliveryId: Schema.String
}) {
  override get message(): string {
    return `delivery ${this.deliveryId} not found in this project`
  }
}

export class MediaNotFound extends Schema.TaggedError<MediaNotFound>()("MediaNotFound", {
  mediaId: Schema.String
}) {
  override get message(): string {
    return `media ${this.mediaId} not found in this project`
  }
}

export class MissingScope extends Schema.TaggedError<MissingScope>()("MissingScope", {
  scope: Schema.String
}) {
  override get message(): string {
    return `this key lacks the ${this.scope} scope`
  }
}

export class AgentCannotApprove extends Schema.TaggedError<AgentCannotApprove>()("AgentCannotApprove", {}) {
  override get message(): string {
    return "agent keys can never approve or reject posts; a person decides with a human key"
  }
}

export class PlanInactive extends Schema.TaggedError<PlanInactive>()("PlanInactive", {}) {
  override get message(): string {
    return "no active plan: this project cannot create posts"
  }
}

/** PATCH on a post that has gone out or was already tried (400 per the contract). */
export class NotEditable extends Schema.TaggedError<NotEditable>()("NotEditable", {
  postId: Schema.String,
  status: Schema.String
}) {
  override get message(): string {
    return `post ${this.postId} is ${this.status} and can no longer be edited; retry a failed delivery instead`
  }
}

/**
 * The stable codes of a state that forbids an operation a client asked for (docs/api.md lists
 * them). None is another error's code, so a client tells them apart. The lifecycle's refusals of
 * events only Herald sends have codes of their own (Lifecycle.ts, OutOfTurnCode).
 */
export const StateConflictCode = Schema.Literal(
  "approval_link_outdated",
  "concurrent_update",
  "delivery_never_went_out",
  "delivery_not_failed",
  "delivery_taken_down",
  "post_approved",
  "post_not_deletable",
  "post_not_pending_approval",
  "takedown_unsupported"
)
export type StateConflictCode = typeof StateConflictCode.Type

/** A state that forbids the operation (409): approve of a decided post, delete of a published one, ... */
export class StateConflict extends Schema.TaggedError<StateConflict>()("StateConflict", {
  code: StateConflictCode,
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

/**
 * A worker's intent to publish a delivery that is no longer queued (another worker, a retry or a
 * takedown got there first): the worker skips it. Never a client's answer.
 */
export class DeliveryNotDue extends Schema.TaggedError<DeliveryNotDue>()("DeliveryNotDue", {
  deliveryId: Schema.String,
  status: Schema.String
}) {
  override get message(): string {
    return `delivery ${this.deliveryId} is ${this.status}`
  }
}

export class DailyCapReached extends Schema.TaggedError<DailyCapReached>()("DailyCapReached", {
  cap: Schema.Int,
  resetAt: Schema.DateTimeUtc
}) {
  override get message(): string {
    return `this key's daily post cap of ${this.cap} is reached; it resets at ${this.resetAt.toJSON()}`
  }
}

/** The same idempotency_key sent with a different body (Stripe answers 400 idempotency_error). */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  key: Schema.String
}) {
  override get message(): string {
    return `idempotency_key ${quote(this.key)} was already used with a different request body`
  }
}

/** Another writer changed the post first; the use case reloads and decides again. */
export class StaleWrite extends Schema.TaggedError<StaleWrite>()("StaleWrite", {
  postId: Schema.String
}) {}

/** The platform would not remove a live post; the receipt stays as it was. */
export class TakedownFailed extends Schema.TaggedError<TakedownFailed>()("TakedownFailed", {
  deliveryId: Schema.String,
  category: DeliveryErrorCategory,
  detail: Schema.String
}) {
  override get message(): string {
    return `the platform did not take delivery ${this.deliveryId} down (${this.category}): ${this.detail}`
  }
}
