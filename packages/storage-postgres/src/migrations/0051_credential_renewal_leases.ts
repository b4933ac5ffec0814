import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Who is renewing an account's credentials, and until when: a lease taken and released in short
 * statements, so no transaction stays open while the platform's token endpoint answers (on the
 * embedded database that would hold its one connection). A lease past its time is free again
 * (its holder died).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE social_accounts
  ADD COLUMN renewal_holder uuid,
  ADD COLUMN renewal_until timestamptz,
  ADD CONSTRAINT social_accounts_renewal_lease CHECK ((renewal_holder IS NULL) = (renewal_until IS NULL));
`)
)
