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
  /**
   * Connects the platform account `platformAccountId` to the account's project and route, or,
   * when that project already holds it there, reconnects that account (its id kept; username,
   * credentials and status from `account`). Returns the account as stored.
   */
  readonly connectPlatformAccount: (
    account: SocialAccount,
    credentials: Credentials,
    platformAccountId: string
  ) => Effect.Effect<SocialAccount>
  /**
   * Renews an account's credentials one caller at a time, across processes: `renew` runs while
   * the account is held, with its credentials read after the hold was taken (another caller may
   * have just renewed them), and answers the ones to store, or none to keep them. Returns the
   * credentials stored when it ends; none when the account has none.
   */
  readonly renewCredentials: <E>(
    id: AccountId,
    renew: (current: Credentials) => Effect.Effect<Option.Option<Credentials>, E>
  ) => Effect.Effect<Option.Option<Credentials>, E>
}>() {}
