import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Each Pinterest account's boards as Herald last read them from Pinterest ({ id, name, eligible,
 * reason } in Pinterest's order): create checks board_ids against them, GET /posting-rules shows them.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE pinterest_boards (
  account_id uuid PRIMARY KEY REFERENCES social_accounts (id) ON DELETE CASCADE,
  boards jsonb NOT NULL,
  read_at timestamptz NOT NULL DEFAULT now()
);
`)
)
