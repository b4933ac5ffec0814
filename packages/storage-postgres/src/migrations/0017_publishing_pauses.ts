import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The emergency stop (docs/emergency-stop.md). publishing_pauses holds the pauses in force: one
 * per project at most, and one for the whole instance (project_id null). The claim of due
 * deliveries (0008) leaves out every delivery of a paused project, and everything while the
 * instance is paused, so a pause reaches every worker process at its next claim; the rows stay
 * queued with their due time and are claimed in due order once the pause is lifted.
 *
 * The instance's pause is an uncorrelated condition: PostgreSQL evaluates it once per claim (an
 * InitPlan) and, while it holds, reads no delivery at all. A project's pause is checked per due
 * row through the primary key; a paused project's backlog is walked past by the claims of others
 * (the index is in due order, not by project).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE publishing_pauses (
  scope text PRIMARY KEY,
  project_id uuid UNIQUE REFERENCES projects (id) ON DELETE CASCADE,
  paused_at timestamptz NOT NULL,
  reason text,
  CHECK (scope = coalesce(project_id::text, 'instance'))
);

CREATE OR REPLACE FUNCTION claim_due_deliveries(worker text, at timestamptz, lease_millis integer, max_rows integer)
RETURNS TABLE (delivery_id uuid, post_id uuid, project_id uuid)
LANGUAGE sql
SET enable_sort = off
AS $$
  WITH lapsed AS (
    SELECT id FROM deliveries d
    WHERE status = 'publishing' AND lease_expires_at <= at
      AND NOT EXISTS (SELECT 1 FROM publishing_pauses WHERE scope = 'instance')
      AND NOT EXISTS (SELECT 1 FROM publishing_pauses p WHERE p.scope = d.project_id::text)
    ORDER BY lease_expires_at
    LIMIT max_rows
    FOR UPDATE SKIP LOCKED
  ), due AS (
    SELECT id FROM deliveries d
    WHERE status IN ('queued', 'unknown') AND due_at <= at
      AND (lease_expires_at IS NULL OR lease_expires_at <= at)
      AND NOT EXISTS (SELECT 1 FROM publishing_pauses WHERE scope = 'instance')
      AND NOT EXISTS (SELECT 1 FROM publishing_pauses p WHERE p.scope = d.project_id::text)
    ORDER BY due_at, id
    LIMIT max_rows
    FOR UPDATE SKIP LOCKED
  ), picked AS (
    (SELECT id FROM lapsed) UNION ALL (SELECT id FROM due) LIMIT max_rows
  )
  UPDATE deliveries d
  SET lease_owner = worker, lease_expires_at = at + lease_millis * interval '1 millisecond'
  FROM picked WHERE d.id = picked.id
  RETURNING d.id, d.post_id, d.project_id
$$;
`)
)
