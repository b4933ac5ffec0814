import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A project's approval channels (docs/approval-channels.md): a reviewer's e-mail address or a chat
 * incoming-webhook URL, sealed like webhook secrets (the URL is a credential), and the label a
 * decision through the channel records.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE approval_channels (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  kind text NOT NULL,
  recipient text NOT NULL,
  address text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX approval_channels_project ON approval_channels (project_id, created_at);
`)
)
