/**
 * Whether a YouTube connection works: the grant's channel answers (channels.list mine=true, one
 * quota unit) with the stored token, refreshed once if Google refuses it. Google's refresh tokens
 * do not expire on a date (they lapse unused for six months, or when revoked), so no expiry is
 * reported; the scopes granted are compared with those publishing needs. A token or refresh Google
 * refuses is Refused.
 */
import { ConnectionHealth, type ConnectionProbe, type PlatformCallFailed } from "@herald/core"
import { type Context, Effect } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import type { QuotaSettings } from "./Quota.js"
import { myChannel, neededScopes } from "./YoutubeOAuth.js"
import { type Needs, withToken } from "./YoutubeToken.js"

export const youtubeProbe = (client: PlatformClient, quota: QuotaSettings, context: Context.Context<Needs>): ConnectionProbe => ({
  check: (account) =>
    withToken(account, (token) =>
      Effect.as(myChannel(client, quota, token.accessToken), ConnectionHealth.Alive({ expiresAt: null, granted: token.scopes, needed: neededScopes }))).pipe(
        asRead,
        Effect.catchIf(
          (failed: PlatformCallFailed) => failed.error.category === "auth_expired",
          (failed) => Effect.succeed(ConnectionHealth.Refused({ code: failed.error.code, message: failed.error.message }))
        ),
        Effect.provide(context)
      )
})
