import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * DeliveryQueue.claimDue as a function that plans its query with sorting turned off, so each
 * half always walks its index (0004) in order and stops at the rows it takes. Left to itself, the
 * planner reads a table it has no statistics for yet (a backlog loaded before ANALYZE ran) as a
 * handful of rows, and then prefers to fetch every due row through a bitmap scan and sort them:
 * one claim of 32 out of 10,000 due deliveries read 18,000 index entries and 400 heap pages
 * instead of the 32 rows it took, on every claim until the backlog drained (bench/README.md,
 * Dispatch: PostgreSQL's share).
 *
 * Publishing deliveries whose lease lapsed come first (their worker died mid-call; they have
 * waited a whole lease already), then queued and unknown ones in due order. SKIP LOCKED:
 * concurrent claimers split the due set instead of waiting on each other.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE FUNCTION claim_due_deliveries(worker text, at timestamptz, lease_millis integer, max_rows integer)
RETURNS TABLE (delivery_id uuid, post_id uuid, project_id uuid)
LANGUAGE sql
SET enable_sort = off
AS $$
  WITH lapsed AS (
    SELECT id FROM deliveries
    WHERE status = 'publishing' AND lease_expires_at <= at
    ORDER BY lease_expires_at
    LIMIT max_rows
    FOR UPDATE SKIP LOCKED
  ), due AS (
    SELECT id FROM deliveries
    WHERE status IN ('queued', 'unknown') AND due_at <= at
      AND (lease_expires_at IS NULL OR lease_expires_at <= at)
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
