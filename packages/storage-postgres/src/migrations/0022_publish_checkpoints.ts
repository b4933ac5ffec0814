import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What a publisher recorded part-way through a delivery (a Meta media container's id) before
 * waiting on the platform, so an attempt cut short resumes on it instead of starting over.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE publish_checkpoints (
  delivery_id uuid PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
  value text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
`)
)
