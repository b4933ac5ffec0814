import type {
  AgentCannotApprove,
  DailyCapReached,
  DeliveryNotFound,
  GuardrailBlocked,
  IdempotencyKeyReused,
  MissingScope,
  NotEditable,
  PlanInactive,
  PostNotFound,
  PostSuperseded,
  StateConflict,
  TakedownFailed,
  ValidationFailed
} from "./Errors.js"

/** Every domain error a use case can answer with. */
export type DomainError =
  | AgentCannotApprove
  | DailyCapReached
  | DeliveryNotFound
  | GuardrailBlocked
  | IdempotencyKeyReused
  | MissingScope
  | NotEditable
  | PlanInactive
  | PostNotFound
  | PostSuperseded
  | StateConflict
  | TakedownFailed
  | ValidationFailed

/**
 * The stable machine-readable code of each error, the same on REST, MCP, bulk rows and webhooks.
 * docs/api.md lists them.
 */
export const errorCode = (error: DomainError): string => {
  switch (error._tag) {
    case "AgentCannotApprove":
      return "agent_cannot_approve"
    case "DailyCapReached":
      return "daily_cap_reached"
    case "DeliveryNotFound":
      return "delivery_not_found"
    case "GuardrailBlocked":
      return "guardrail_blocked"
    case "IdempotencyKeyReused":
      return "idempotency_key_reused"
    case "MissingScope":
      return "missing_scope"
    case "NotEditable":
      return "post_not_editable"
    case "PlanInactive":
      return "no_active_plan"
    case "PostNotFound":
      return "post_not_found"
    case "PostSuperseded":
      return "post_superseded"
    case "StateConflict":
      return error.code
    case "TakedownFailed":
      return "takedown_failed"
    case "ValidationFailed":
      return "validation_failed"
  }
}
