/**
 * Whether an Instagram connection works: the account answers, and the publishing quota answers
 * (which says publishing is granted). A token Instagram refuses, even after a refresh, is Refused.
 */
import { ConnectionHealth, type ConnectionProbe, type PlatformCallFailed } from "@herald/core"
import { type Context, DateTime, Effect, Option, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import type { StoredToken } from "../meta/UserToken.js"
import { graphOf, type InstagramLogin, type Needs, sendJson, withToken } from "./InstagramApi.js"

const Account = Schema.Struct({ id: Schema.String, username: Schema.String })
const Quota = Schema.Struct({ data: Schema.Array(Schema.Unknown) })

export const instagramProbe = (login: InstagramLogin, client: PlatformClient, context: Context.Context<Needs>): ConnectionProbe => {
  const graph = graphOf(login)
  const [basic] = login.publishScopes
  const check = (token: StoredToken) =>
    Effect.gen(function*() {
      yield* sendJson(client.read, graph("GET", `${token.user_id}?fields=id,username`, token.access_token), Account)
      const publishing = yield* sendJson(client.read, graph("GET", `${token.user_id}/content_publishing_limit?fields=quota_usage`, token.access_token), Quota).pipe(
        Effect.as(true),
        Effect.catchIf((failure) => failure._tag === "PlatformRefusal" && failure.error.category === "permission_missing", () => Effect.succeed(false))
      )
      return ConnectionHealth.Alive({
        expiresAt: token.expires_at === undefined ? null : Option.getOrNull(DateTime.make(token.expires_at)),
        granted: publishing ? login.publishScopes : basic === undefined ? [] : [basic],
        needed: login.publishScopes
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
