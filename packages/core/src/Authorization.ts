import { Effect } from "effect"
import { AgentCannotApprove, MissingScope } from "./Errors.js"
import type { Principal, Scope } from "./Principal.js"

export const requireScope = (principal: Principal, scope: Scope): Effect.Effect<void, MissingScope> =>
  principal.has(scope) ? Effect.void : Effect.fail(new MissingScope({ scope }))

/** The approve route: agent keys are refused whatever their scopes, before anything else. */
export const requireApprover = (principal: Principal): Effect.Effect<void, AgentCannotApprove | MissingScope> =>
  principal.kind === "agent" ? Effect.fail(new AgentCannotApprove()) : requireScope(principal, "posts:approve")
