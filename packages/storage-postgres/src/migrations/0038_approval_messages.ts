import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The messages owed to approval channels, one per held post and channel, sent under leases like
 * webhook sends. kind and recipient are copied from the channel, so a link sent before the channel
 * was removed still names who it went to. Held posts get an index of their own: the fan-out reads
 * them on every pass.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE approval_messages (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  channel_id uuid NOT NULL,
  kind text NOT NULL,
  recipient text NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  due_at timestamptz NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz,
  last_error text,
  finished_at timestamptz,
  UNIQUE (post_id, channel_id)
);
CREATE INDEX approval_messages_due ON approval_messages (due_at) WHERE status = 'pending';
CREATE INDEX posts_held ON posts (project_id, created_at) WHERE status = 'pending_approval' AND superseded_by IS NULL;
`)
)
