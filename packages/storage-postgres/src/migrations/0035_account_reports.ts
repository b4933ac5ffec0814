import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What a platform itself reports of an account (TikTok's creator info: the privacy levels and the
 * longest video it allows), kept with the account so that create validates against it without
 * calling the platform; written at connect and by each connection check.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE social_accounts ADD COLUMN report jsonb;
`)
)
