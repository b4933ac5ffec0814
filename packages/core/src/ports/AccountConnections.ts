import { Context, type Effect } from "effect"
import type { OutboxEvent } from "../Event.js"
import type { AccountId } from "../Ids.js"

/**
 * What the workers learn about a connection while using it. A platform that refuses an account's
 * token turns the account needs_reconnect, and the account.needs_reconnect event is written in the
 * same transaction, so a subscriber hears of it exactly when it happened.
 */
export class AccountConnections extends Context.Tag("@herald/core/AccountConnections")<AccountConnections, {
  /**
   * Marks an active account needs_reconnect and writes the event with it. false (and no event)
   * when the account was not active: it was already marked, disconnected, or is gone.
   */
  readonly markNeedsReconnect: (accountId: AccountId, event: OutboxEvent) => Effect.Effect<boolean>
}>() {}
