/**
 * Whether a Facebook Page connection works: the Page answers as `me` with its token, and its
 * recent posts can be read (pages_read_engagement, what reconcile and metrics need). Posting
 * itself cannot be tried without posting. A token Facebook refuses, even after asking for a new
 * one with the user token, is Refused.
 */
import { ConnectionHealth, type ConnectionProbe, type PlatformCallFailed } from "@herald/core"
import { type Context, Effect, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { graph, sendJson } from "./FacebookApi.js"
import { type Needs, type StoredToken, withToken } from "./FacebookToken.js"

const needed = ["pages_show_list", "pages_read_engagement", "pages_manage_posts"]
const Page = Schema.Struct({ id: Schema.String, name: Schema.String })
const Posts = Schema.Struct({ data: Schema.Array(Schema.Unknown) })

export const facebookProbe = (client: PlatformClient, context: Context.Context<Needs>): ConnectionProbe => {
  const check = (token: StoredToken) =>
    Effect.gen(function*() {
      yield* sendJson(client.read, graph("GET", "me?fields=id,name", token.access_token), Page)
      const reading = yield* sendJson(client.read, graph("GET", `${token.page_id}/published_posts?fields=id&limit=1`, token.access_token), Posts).pipe(
        Effect.as(true),
        Effect.catchIf((failure) => failure._tag === "PlatformRefusal" && failure.error.category === "permission_missing", () => Effect.succeed(false))
      )
      // A Page token has no expiry; the Page answering is what is known of the grant.
      return ConnectionHealth.Alive({ expiresAt: null, granted: reading ? needed : ["pages_show_list"], needed })
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
