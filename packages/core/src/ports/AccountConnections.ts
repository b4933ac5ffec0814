import { Context, type Effect } from "effect"
import type { ConnectionFinding } from "../ConnectionIssue.js"
import type { OutboxEvent } from "../Event.js"
import type { AccountId } from "../Ids.js"

/**
 * What the workers learn about a connection while using it. A platform that refuses an account's
 * token turns the account needs_reconnect, and the account.needs_reconnect event is written in the
 * same transaction, so a subscriber hears of it exactly when it happened. The login_dead incident
 * opens with it: the one the connection checker opens when it finds the refusal first.
 */
export class AccountConnections extends Context.Tag("@herald/core/AccountConnections")<AccountConnections, {
  /**
   * Marks an active account needs_reconnect and writes the event with it. false (and no event)
   * when the account was not active: it was already marked, disconnected, or is gone. `issue`
   * opens the account's login_dead incident unless one is open (or the account is disconnected or gone).
   */
  readonly markNeedsReconnect: (
    accountId: AccountId,
    event: OutboxEvent,
    issue: ConnectionFinding & { readonly id: string }
  ) => Effect.Effect<boolean>
}>() {}
