import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The other posts a delivery's publish made beside the main one (X's thread follow-ups and first
 * comment), so that a takedown removes them too. A JSON array of the platform's ids.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE deliveries ADD COLUMN follow_up_post_ids jsonb NOT NULL DEFAULT '[]';
`))
