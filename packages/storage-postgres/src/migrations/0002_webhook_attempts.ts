import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The webhook delivery log: one row per attempt. Kept apart from webhook_sends (one row per event
 * and endpoint, the work item) so the queue's rows stay small while the log grows.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id uuid NOT NULL,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
  kind text NOT NULL,
  delivery_id uuid NOT NULL,
  attempt integer NOT NULL CHECK (attempt > 0),
  at timestamptz NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL CHECK (latency_ms >= 0),
  response_prefix text NOT NULL,
  error text,
  outcome text NOT NULL CHECK (outcome IN ('sent', 'retry', 'given_up'))
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, at DESC, id DESC);
`)
)
