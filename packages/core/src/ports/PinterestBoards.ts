import { Context, type Effect, type Option } from "effect"
import type { AccountId } from "../Ids.js"

/**
 * A board of a Pinterest account as Herald last read it from Pinterest: whether a pin can land
 * on it through this connection, and why not when it cannot. The first eligible board in
 * Pinterest's own order is the account's default board.
 */
export interface KnownBoard {
  readonly id: string
  readonly name: string
  readonly eligible: boolean
  readonly reason: string | null
}

/**
 * The boards each Pinterest account had at its last successful lookup (at connect, at each
 * connection check, at a publish that needed them). Create checks board_ids against this list
 * without calling Pinterest; GET /posting-rules shows it. None: never looked up successfully.
 */
export class PinterestBoards extends Context.Tag("@herald/core/PinterestBoards")<PinterestBoards, {
  readonly get: (accountId: AccountId) => Effect.Effect<Option.Option<ReadonlyArray<KnownBoard>>>
  readonly put: (accountId: AccountId, boards: ReadonlyArray<KnownBoard>) => Effect.Effect<void>
}>() {}

/** The board a pin lands on when the post names none: the first eligible one. */
export const defaultBoard = (boards: ReadonlyArray<KnownBoard>): KnownBoard | undefined => boards.find((board) => board.eligible)
