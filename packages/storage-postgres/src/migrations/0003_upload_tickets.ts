import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Upload slots from POST /media/ticket; a claimed or expired row is never redeemed again. */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE upload_tickets (
  ticket text PRIMARY KEY,
  project_id uuid NOT NULL,
  key_id uuid NOT NULL,
  max_bytes bigint NOT NULL CHECK (max_bytes > 0),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  claimed_at timestamptz
);
CREATE INDEX upload_tickets_expires ON upload_tickets (expires_at);
`)
)
