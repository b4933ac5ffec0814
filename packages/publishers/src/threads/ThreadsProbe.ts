/**
 * Whether a Threads connection works: the user answers (GET /me, threads_basic), and the
 * publishing quota answers (threads_content_publish), which says publishing is granted. A token
 * Threads refuses, even after a refresh, is Refused.
 */
import { ConnectionHealth, type ConnectionProbe, type PlatformCallFailed } from "@herald/core"
import { type Context, DateTime, Effect, Option, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { graph, sendJson } from "./ThreadsApi.js"
import { Me } from "./ThreadsOAuth.js"
import { type Needs, type StoredToken, withToken } from "./ThreadsToken.js"

const needed = ["threads_basic", "threads_content_publish"]
const Quota = Schema.Struct({ data: Schema.Array(Schema.Unknown) })

export const threadsProbe = (client: PlatformClient, context: Context.Context<Needs>): ConnectionProbe => {
  const check = (token: StoredToken) =>
    Effect.gen(function*() {
      yield* sendJson(client.read, graph("GET", "me?fields=id,username", token.access_token), Me)
      const publishing = yield* sendJson(client.read, graph("GET", `${token.user_id}/threads_publishing_limit?fields=quota_usage`, token.access_token), Quota).pipe(
        Effect.as(true),
        Effect.catchIf((failure) => failure._tag === "PlatformRefusal" && failure.error.category === "permission_missing", () => Effect.succeed(false))
      )
      return ConnectionHealth.Alive({
        expiresAt: token.expires_at === undefined ? null : Option.getOrNull(DateTime.make(token.expires_at)),
        granted: publishing ? needed : ["threads_basic"],
        needed
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
