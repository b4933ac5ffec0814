/**
 * Whether a Pinterest connection works: the user answers (GET /v5/user_account), and the boards
 * are read again and kept (what create checks board_ids against). A token Pinterest refuses, even
 * after a refresh, is Refused.
 */
import { ConnectionHealth, type ConnectionProbe, type PlatformCallFailed } from "@herald/core"
import { type Context, DateTime, Effect, Option } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { refreshBoards } from "./PinterestBoardList.js"
import { userAccount } from "./PinterestOAuth.js"
import { type Needs, scopesOf, type StoredToken, withToken } from "./PinterestToken.js"

const needed = ["user_accounts:read", "boards:read", "pins:read", "pins:write"]

export const pinterestProbe = (client: PlatformClient, context: Context.Context<Needs>): ConnectionProbe => ({
  check: (account) =>
    withToken(account, (token: StoredToken) =>
      Effect.gen(function*() {
        yield* userAccount(client, token.access_token)
        // The list kept from the last lookup stays when this one fails: boards rarely change.
        yield* refreshBoards(client, account, token).pipe(Effect.ignore)
        return ConnectionHealth.Alive({
          expiresAt: token.expires_at === undefined ? null : Option.getOrNull(DateTime.make(token.expires_at)),
          granted: scopesOf(token),
          needed
        })
      })).pipe(
        asRead,
        Effect.catchIf(
          (failed: PlatformCallFailed) => failed.error.category === "auth_expired",
          (failed) => Effect.succeed(ConnectionHealth.Refused({ code: failed.error.code, message: failed.error.message }))
        ),
        Effect.provide(context)
      )
})
