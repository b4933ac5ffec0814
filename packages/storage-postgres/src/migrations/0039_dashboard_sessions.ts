import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The dashboard's sign-in sessions (http-api DashboardSession.ts). Only hashes are kept: the
 * session token's (the cookie) and the credential's it was opened with (the admin token or the
 * human key), so a session dies with its credential and a database dump opens nothing.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE dashboard_sessions (
  token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  role text NOT NULL CHECK (role IN ('operator', 'reviewer')),
  credential_hash text NOT NULL CHECK (credential_hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
`)
)
