import { Context, type Effect, type Option, Schema } from "effect"
import type { AccountStatus, SocialAccount } from "../Account.js"
import type { AccountId } from "../Ids.js"

/** A platform's tokens and secrets for one account, as the publisher for its route needs them. */
export const Credentials = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export type Credentials = typeof Credentials.Type

export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {
  accountId: Schema.String
}) {
  override get message(): string {
    return `social account ${this.accountId} not found`
  }
}

/**
 * Connecting accounts and reading their credentials. Credentials are encrypted at rest; only
 * `credentialsFor` (for publishers) ever returns them, and no read of AccountStore includes them.
 */
export class AccountAdmin extends Context.Tag("@herald/core/AccountAdmin")<AccountAdmin, {
  /** Connects the account, or reconnects it (new credentials, status back to the given one) when its id exists. */
  readonly connect: (account: SocialAccount, credentials: Credentials) => Effect.Effect<void>
  readonly setStatus: (id: AccountId, status: AccountStatus) => Effect.Effect<void, AccountNotFound>
  readonly credentialsFor: (id: AccountId) => Effect.Effect<Option.Option<Credentials>>
}>() {}
