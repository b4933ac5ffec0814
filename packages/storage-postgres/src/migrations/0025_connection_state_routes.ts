import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The connection route a consent page was opened for: a platform may be connected through more
 * than one login (Instagram: Instagram Login on `direct`, Facebook Login on `facebook_login`).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE oauth_states ADD COLUMN route text NOT NULL DEFAULT 'direct';
`)
)
