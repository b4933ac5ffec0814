import { Context, type Effect } from "effect"
import type { SocialAccount } from "../Account.js"
import type { Credentials } from "./AccountAdmin.js"
import type { PlatformCallFailed } from "./RouteAdapters.js"

/**
 * An account's access token, kept fresh. Credentials of OAuth routes hold `access_token`, and
 * optionally `refresh_token`, `expires_at` (ISO-8601 UTC) and `scope` (space separated, as
 * granted), beside the platform's own fields (a Bluesky DID and PDS, a LinkedIn author URN).
 */
export class AccountTokens extends Context.Tag("@herald/core/AccountTokens")<AccountTokens, {
  /**
   * The account's credentials with an access token good for a while yet: refreshed first when it
   * expires within the refresh margin; one refresh per account at a time across processes. A
   * refused refresh marks the account needs_reconnect and fails with category auth_expired.
   */
  readonly current: (account: SocialAccount) => Effect.Effect<Credentials, PlatformCallFailed>
  /** The platform refused `refused` (401): refresh now unless another caller already did. */
  readonly afterRefusal: (account: SocialAccount, refused: Credentials) => Effect.Effect<Credentials, PlatformCallFailed>
}>() {}
