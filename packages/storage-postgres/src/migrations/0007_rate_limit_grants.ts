import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Processes take a key's requests from its window in batches (PostgresRateLimitStore): hits now
 * counts what was handed out, and last_grant what the latest statement handed out, so the statement
 * that changed the row can tell its caller (RETURNING sees only the new row).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`ALTER TABLE rate_limit_windows ADD COLUMN last_grant integer NOT NULL DEFAULT 0;`))
