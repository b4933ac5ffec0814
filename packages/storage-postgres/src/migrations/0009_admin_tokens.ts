import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Admin tokens (SHA-256 hex only), read by the reference server's admin API. IF NOT EXISTS: before
 * this migration the server created the table itself when it started, so existing databases have it.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`CREATE TABLE IF NOT EXISTS herald_admin_tokens (
    hash text PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
    created_at timestamptz NOT NULL
  );`))
