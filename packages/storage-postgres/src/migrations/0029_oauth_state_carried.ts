import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What a platform's consent start hands to its callback beside the PKCE verifier (atproto: the
 * DPoP private key the pushed authorization request was signed with, and the authorization
 * server), sealed like credentials; null for platforms that carry nothing.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE oauth_states ADD COLUMN carried text;
`)
)
