import { DateTime, Duration, Effect, Option } from "effect"
import { type ConnectionRoute, SocialAccount } from "../Account.js"
import { deadLogin } from "../ConnectionIssue.js"
import { deadLoginData, makeEvent } from "../EventData.js"
import type { Platform } from "../Platform.js"
import { AccountAdmin, type Credentials } from "../ports/AccountAdmin.js"
import { AccountConnections } from "../ports/AccountConnections.js"
import { AccountTokens } from "../ports/AccountTokens.js"
import { IdGenerator } from "../ports/IdGenerator.js"
import type { TokenGrant } from "../ports/OAuthProviders.js"
import { PlatformCallFailed } from "../ports/RouteAdapters.js"
import { grantCredentials } from "./admin/Connections.js"

/** A token expiring sooner than this is refreshed before use, so no call starts with one about to lapse. */
export const refreshMargin = Duration.minutes(5)

/** How a platform renews credentials (its OAuthProvider's or PasswordLogin's refresh). */
export type Refresher = (credentials: Credentials) => Effect.Effect<TokenGrant, PlatformCallFailed>

const expiresAt = (credentials: Credentials): DateTime.Utc | undefined =>
  typeof credentials.expires_at === "string" ? Option.getOrUndefined(DateTime.make(credentials.expires_at)) : undefined

const failed = (code: string, message: string) =>
  new PlatformCallFailed({ error: { category: "auth_expired", code, message }, retryAfterMs: null })

/**
 * AccountTokens over AccountAdmin: credentials read per call, refreshed ahead of expiry (or after
 * a refusal) under AccountAdmin.renewCredentials, so one caller at a time refreshes an account
 * and the others use what it got. A refresh the platform refuses for good marks the account
 * needs_reconnect (with its event) and fails auth_expired.
 */
export const makeAccountTokens = (refresherOf: (platform: Platform, route: ConnectionRoute) => Effect.Effect<Refresher | undefined>) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<AccountAdmin | AccountConnections | IdGenerator>()
    const admin = yield* AccountAdmin
    const who = (account: SocialAccount) => `${account.platform}:${account.username}`

    const markNeedsReconnect = (account: SocialAccount, failure: PlatformCallFailed) =>
      Effect.gen(function*() {
        const marked = new SocialAccount({ ...account, status: "needs_reconnect" })
        // The same login_dead incident the checker and a failed delivery open: one event between them.
        const finding = deadLogin(account, failure.error.message)
        const event = yield* makeEvent(account.projectId, "account.needs_reconnect", deadLoginData(marked, finding, yield* DateTime.now))
        const issue = { ...finding, id: yield* Effect.flatMap(IdGenerator, (ids) => ids.uuid) }
        yield* Effect.flatMap(AccountConnections, (connections) => connections.markNeedsReconnect(account.id, event, issue))
      }).pipe(Effect.provide(context))

    /** Refreshes under the account's hold when `stillNeeded` says the stored credentials need it. */
    const refreshHeld = (account: SocialAccount, stillNeeded: (current: Credentials, now: DateTime.Utc) => boolean) =>
      Effect.gen(function*() {
        const refresher = yield* refresherOf(account.platform, account.route)
        const renewed = yield* admin.renewCredentials(account.id, (current) =>
          Effect.gen(function*() {
            if (!stillNeeded(current, yield* DateTime.now)) return Option.none()
            if (refresher === undefined) {
              // This build cannot renew the platform's tokens: the token lapsed for good.
              return yield* failed("token_expired", `${who(account)}'s token expired and cannot be refreshed; reconnect the account`)
            }
            const grant = yield* refresher(current)
            return Option.some({ ...current, ...grantCredentials(grant) })
          }))
        if (Option.isNone(renewed)) return yield* failed("account_disconnected", `${who(account)} holds no credentials; reconnect it`)
        return renewed.value
      }).pipe(
        Effect.tapError((failure) =>
          failure.error.category === "auth_expired" || failure.error.category === "permission_missing"
            ? markNeedsReconnect(account, failure)
            : Effect.void
        ),
        Effect.mapError((failure) =>
          failure.error.category === "permission_missing"
            ? failed(failure.error.code, `${failure.error.message}; reconnect ${who(account)}`)
            : failure
        )
      )

    const expiresSoon = (credentials: Credentials, now: DateTime.Utc) => {
      const expiry = expiresAt(credentials)
      return expiry !== undefined && DateTime.lessThanOrEqualTo(expiry, DateTime.addDuration(now, refreshMargin))
    }

    return AccountTokens.of({
      current: (account) =>
        Effect.gen(function*() {
          const stored = yield* admin.credentialsFor(account.id)
          if (Option.isNone(stored)) return yield* failed("account_disconnected", `${who(account)} holds no credentials; reconnect it`)
          if (!expiresSoon(stored.value, yield* DateTime.now)) return stored.value
          return yield* refreshHeld(account, expiresSoon)
        }),
      afterRefusal: (account, refused) =>
        // Another caller may have refreshed since `refused` was read: then its token is the one to use.
        refreshHeld(account, (current) => current.access_token === refused.access_token)
    })
  })
