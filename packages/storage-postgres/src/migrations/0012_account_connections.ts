import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Accounts connected through a platform's own API carry the platform's id for the account, so a
 * second connect of the same platform account reconnects it instead of adding a twin; consent
 * pages waiting for their callback keep their state (single use, expiring) and PKCE verifier
 * (sealed like credentials) in oauth_states.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE social_accounts ADD COLUMN platform_account_id text;
CREATE UNIQUE INDEX social_accounts_platform_account
  ON social_accounts (project_id, platform, route, platform_account_id)
  WHERE platform_account_id IS NOT NULL;

CREATE TABLE oauth_states (
  state text PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  platform text NOT NULL,
  caller text NOT NULL,
  code_verifier text NOT NULL,
  redirect_uri text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX oauth_states_expiry ON oauth_states (expires_at);
`))
