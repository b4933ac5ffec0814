import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhook secret rotation: the secret a rotation replaced, sealed like the current one, and when
 * it stops signing. Until then every request carries a signature with each.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE webhook_endpoints
  ADD COLUMN previous_secret text,
  ADD COLUMN previous_secret_expires_at timestamptz,
  ADD CONSTRAINT webhook_endpoints_previous_secret_expiry
    CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL));
`)
)
