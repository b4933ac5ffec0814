/**
 * What the routes that post through a Facebook Page's token share (Facebook Pages, Instagram's
 * Facebook Login route): the long-lived user token as the consent's grant, read back from the
 * grant to list the Pages, and a Page token Facebook stopped taking asked for again with it.
 */
import { PlatformCallFailed, type TokenGrant } from "@herald/core"
import { DateTime, Effect, Schema } from "effect"
import type { FacebookLogin, ManagedPage, UserToken } from "./FacebookLogin.js"

/** The user token as stored beside each Page's token: asked with again when a Page token dies. */
export interface KeptUserToken {
  readonly access_token: string
  readonly expires_at?: string
}

const UserCredentials = Schema.Struct({ access_token: Schema.String, expires_at: Schema.optional(Schema.String) })

/** The consent's grant: the long-lived user token (the accounts are the Pages or their Instagram accounts, from accountsOf). */
export const userGrant = (token: UserToken): TokenGrant => ({
  credentials: { access_token: token.accessToken, ...(token.expiresAt === null ? {} : { expires_at: DateTime.formatIso(token.expiresAt) }) },
  expiresAt: token.expiresAt
})

/** The user token of the consent's grant. */
export const grantedUser = (network: string, grant: TokenGrant): Effect.Effect<KeptUserToken, PlatformCallFailed> =>
  Effect.mapError(Schema.decodeUnknown(UserCredentials)(grant.credentials), () =>
    new PlatformCallFailed({ error: { category: "auth_expired", code: "credentials_unusable", message: `${network}'s grant carries no user token` }, retryAfterMs: null }))

/** The user token fields kept in a Page account's credentials. */
export const keptUserFields = (user: KeptUserToken) => ({
  user_token: user.access_token,
  ...(user.expires_at === undefined ? {} : { user_token_expires_at: user.expires_at })
})

/**
 * The Page asked for again with the user token kept beside its dead token: anything but no
 * answer means logging in again (auth_expired), since Facebook has no refresh grant.
 */
export const pageAgain = (login: FacebookLogin, network: string, userToken: string, pageId: string): Effect.Effect<ManagedPage, PlatformCallFailed> =>
  login.page(userToken, pageId).pipe(
    Effect.mapError((failed) =>
      failed.error.category === "transient" || failed.error.category === "rate_limited"
        ? failed
        : new PlatformCallFailed({
          error: { ...failed.error, category: "auth_expired", message: `${network} gave no new token for Page ${pageId}: ${failed.error.message}; log in again` },
          retryAfterMs: null
        })
    )
  )
