import { SqlClient } from "@effect/sql"
import { type KnownBoard, PinterestBoards, traced } from "@herald/core"
import { Effect, Layer, Option } from "effect"
import { orDieInfra } from "./Infra.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return PinterestBoards.of({
    get: traced("PinterestBoards.get")((accountId) =>
      orDieInfra(sql<{ readonly boards: ReadonlyArray<KnownBoard> }>`SELECT boards FROM pinterest_boards WHERE account_id = ${accountId}`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.boards))
      )
    ),
    put: traced("PinterestBoards.put")((accountId, boards) =>
      orDieInfra(sql`
        INSERT INTO pinterest_boards (account_id, boards) VALUES (${accountId}, ${JSON.stringify(boards)}::jsonb)
        ON CONFLICT (account_id) DO UPDATE SET boards = EXCLUDED.boards, read_at = now()`)
    )
  })
})

export const PostgresPinterestBoards = Layer.effect(PinterestBoards, make)
