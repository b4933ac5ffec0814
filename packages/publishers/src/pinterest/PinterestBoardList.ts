/**
 * An account's boards read from Pinterest (GET /v5/boards, page by page) and judged: can a pin
 * land there through this connection? The list is kept (PinterestBoards) for create's checks and
 * GET /posting-rules.
 */
import { type KnownBoard, PinterestBoards, type SocialAccount } from "@herald/core"
import { Effect, Schema } from "effect"
import type { PlatformClient } from "../kit/index.js"
import { api, sendJson } from "./PinterestApi.js"
import { scopesOf, type StoredToken } from "./PinterestToken.js"

const Board = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  privacy: Schema.optional(Schema.String),
  is_ads_only: Schema.optional(Schema.Boolean)
})
const Page = Schema.Struct({ items: Schema.Array(Board), bookmark: Schema.optional(Schema.NullOr(Schema.String)) })

/** Pinterest's largest page. */
const pageSize = 250

const judge = (board: typeof Board.Type, scopes: ReadonlyArray<string>): KnownBoard => {
  const reason = board.is_ads_only === true
    ? "an ads-only board holds ad pins only"
    : board.privacy === "SECRET" && !scopes.includes("pins:write_secret")
    ? "a secret board, and the connection was not granted pins:write_secret"
    : board.privacy === "PROTECTED"
    ? "a protected board holds ad pins only"
    : null
  return { id: board.id, name: board.name, eligible: reason === null, reason }
}

/** Every board of the token's user, judged, in Pinterest's order; kept for the account. */
export const refreshBoards = (client: PlatformClient, account: SocialAccount, token: StoredToken) =>
  Effect.gen(function*() {
    const boards: Array<KnownBoard> = []
    let bookmark: string | null | undefined
    do {
      const query = new URLSearchParams({ page_size: String(pageSize), ...(bookmark ? { bookmark } : {}) })
      const page = yield* sendJson(client.read, api("GET", `boards?${query}`, token.access_token), "read", Page)
      boards.push(...page.items.map((board) => judge(board, scopesOf(token))))
      bookmark = page.bookmark
    } while (bookmark)
    yield* Effect.flatMap(PinterestBoards, (kept) => kept.put(account.id, boards))
    return boards
  })
