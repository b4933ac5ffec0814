import { DateTime, Effect } from "effect"
import type {
  AgentCannotApprove,
  GuardrailViolation,
  Violation,
  DailyCapReached,
  DeliveryNotFound,
  GuardrailBlocked,
  IdempotencyKeyReused,
  MediaNotFound,
  MissingScope,
  NotEditable,
  PlanInactive,
  PostNotFound,
  PostSuperseded,
  StateConflict,
  StateConflictCode,
  TakedownFailed,
  UnknownOption,
  ValidationFailed
} from "./Errors.js"

/** Every domain error a use case can answer with. */
export type DomainError =
  | AgentCannotApprove
  | DailyCapReached
  | DeliveryNotFound
  | GuardrailBlocked
  | IdempotencyKeyReused
  | MediaNotFound
  | MissingScope
  | NotEditable
  | PlanInactive
  | PostNotFound
  | PostSuperseded
  | StateConflict
  | TakedownFailed
  | UnknownOption
  | ValidationFailed

/**
 * The stable machine-readable code of each error kind, the same on REST, MCP, bulk rows and
 * webhooks (docs/api.md lists them). A StateConflict carries its own code (StateConflictCode).
 */
export const errorCodes = {
  AgentCannotApprove: "agent_cannot_approve",
  DailyCapReached: "daily_cap_reached",
  DeliveryNotFound: "delivery_not_found",
  GuardrailBlocked: "guardrail_blocked",
  IdempotencyKeyReused: "idempotency_key_reused",
  MediaNotFound: "media_not_found",
  MissingScope: "missing_scope",
  NotEditable: "post_not_editable",
  PlanInactive: "no_active_plan",
  PostNotFound: "post_not_found",
  PostSuperseded: "post_superseded",
  TakedownFailed: "takedown_failed",
  UnknownOption: "unknown_option",
  ValidationFailed: "validation_failed"
} as const satisfies Record<Exclude<DomainError, StateConflict>["_tag"], string>

/** The codes an error of type E can carry, as a type: clients discriminate on them. */
export type ErrorCodeOf<E extends DomainError> = E extends StateConflict ? StateConflictCode
  : typeof errorCodes[Exclude<E, StateConflict>["_tag"]]

export const errorCode = <E extends DomainError>(error: E): ErrorCodeOf<E> =>
  (error._tag === "StateConflict" ? error.code : errorCodes[error._tag]) as ErrorCodeOf<E>

/**
 * A domain error as its reply body, the same on REST (with the status its class gives) and MCP (a
 * tool error): error (a sentence), code, and the violations or the seconds until the daily cap resets.
 */
export interface ErrorBody<Code extends string = string> {
  readonly error: string
  readonly code: Code
  readonly violations?: ReadonlyArray<Violation | GuardrailViolation>
  readonly retry_after?: number
}

export const errorBody = <E extends DomainError>(error: E): Effect.Effect<ErrorBody<ErrorCodeOf<E>>> => {
  const base = { error: error.message, code: errorCode(error) }
  switch (error._tag) {
    case "ValidationFailed":
    case "UnknownOption":
    case "GuardrailBlocked":
      return Effect.succeed({ ...base, violations: error.violations })
    case "DailyCapReached":
      return Effect.map(
        DateTime.now,
        (now) => ({ ...base, retry_after: Math.max(Math.ceil(DateTime.distance(now, error.resetAt) / 1000), 1) })
      )
    default:
      return Effect.succeed(base)
  }
}
