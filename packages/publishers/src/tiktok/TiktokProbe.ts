/**
 * Whether a TikTok connection works: the user answers (GET /v2/user/info/, user.info.basic), and
 * creator_info answers (video.publish), which is also what the creator may post now: its report
 * is kept with the account. A token TikTok refuses, even after a refresh, is Refused; the refresh
 * token's end is when a reconnect becomes necessary.
 */
import { ConnectionHealth, type ConnectionProbe, type PlatformCallFailed } from "@herald/core"
import { type Context, DateTime, Effect, Option } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { api, call } from "./TiktokApi.js"
import { type AppStanding, readReport } from "./TiktokCreator.js"
import { tiktokScopes, UserInfo } from "./TiktokOAuth.js"
import { type Needs, type StoredToken, withToken } from "./TiktokToken.js"

export const tiktokProbe = (client: PlatformClient, standing: AppStanding, context: Context.Context<Needs>): ConnectionProbe => {
  const check = (token: StoredToken) =>
    Effect.gen(function*() {
      yield* call(client.read, api("GET", "/v2/user/info/?fields=open_id,display_name", token.access_token), UserInfo)
      const creator = yield* readReport(client.read, token.access_token, standing).pipe(
        Effect.map(Option.some),
        Effect.catchIf((failure) => failure._tag === "PlatformRefusal" && failure.error.category === "permission_missing", () => Effect.succeedNone)
      )
      const scopes = token.scope?.split(",").map((scope) => scope.trim()) ?? [...tiktokScopes]
      return ConnectionHealth.Alive({
        expiresAt: token.refresh_expires_at === undefined ? null : Option.getOrNull(DateTime.make(token.refresh_expires_at)),
        granted: Option.isSome(creator) ? scopes : scopes.filter((scope) => scope !== "video.publish"),
        needed: [...tiktokScopes],
        ...(Option.isSome(creator) ? { report: creator.value.report } : {})
      })
    })

  return {
    check: (account) =>
      withToken(account, check).pipe(
        asRead,
        Effect.catchIf(
          (failed: PlatformCallFailed) => failed.error.category === "auth_expired",
          (failed) => Effect.succeed(ConnectionHealth.Refused({ code: failed.error.code, message: failed.error.message }))
        ),
        Effect.provide(context)
      )
  }
}
