import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Connection health. connection_issues (created empty by 0001) gains what an incident row shows
 * (severity, the action to take, when it was last seen) and one open incident per (account, kind),
 * which is what lets a failed delivery and the checker open the same incident whichever is first.
 * connection_checks holds each account's throttle (next_check_at), the platform's own wait
 * (not_before) and the lease that keeps two workers from probing one account at once.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE connection_issues
  ADD COLUMN severity text NOT NULL DEFAULT 'critical' CHECK (severity IN ('critical', 'warning')),
  ADD COLUMN action jsonb NOT NULL DEFAULT '{"type": "reconnect", "description": "reconnect the account", "url": null}',
  ADD COLUMN last_checked_at timestamptz;
UPDATE connection_issues SET last_checked_at = coalesce(resolved_at, opened_at);
ALTER TABLE connection_issues ALTER COLUMN last_checked_at SET NOT NULL;
CREATE UNIQUE INDEX connection_issues_one_open ON connection_issues (account_id, kind) WHERE resolved_at IS NULL;

CREATE TABLE connection_checks (
  account_id uuid PRIMARY KEY REFERENCES social_accounts (id) ON DELETE CASCADE,
  next_check_at timestamptz NOT NULL,
  not_before timestamptz,
  lease_owner text,
  lease_expires_at timestamptz
);
CREATE INDEX connection_checks_due ON connection_checks (next_check_at);
`)
)
