import { SqlClient } from "@effect/sql"
import { AdminTokens } from "@herald/http-api"
import { DateTime, Effect, Layer } from "effect"
import { inSpan } from "@herald/core"

/** Admin tokens in PostgreSQL (SHA-256 hex only), in the table of migration 0009_admin_tokens. */
export const PostgresAdminTokens = Layer.effect(
  AdminTokens,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return AdminTokens.of({
      add: (hash) =>
        Effect.flatMap(DateTime.now, (now) =>
          sql`INSERT INTO herald_admin_tokens (hash, created_at) VALUES (${hash}, ${DateTime.toDateUtc(now)})
              ON CONFLICT (hash) DO NOTHING`).pipe(Effect.asVoid, Effect.orDie, inSpan("AdminTokens.add")),
      isKnown: (hash) =>
        sql<{ readonly found: number }>`SELECT 1 AS found FROM herald_admin_tokens WHERE hash = ${hash}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie,
          inSpan("AdminTokens.isKnown")
        )
    })
  })
)
