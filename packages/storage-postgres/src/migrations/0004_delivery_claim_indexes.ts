import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Indexes shaped like the two halves of DeliveryQueue.claimDue, so a claim reads only the rows it
 * takes instead of sorting every due delivery: queued and unknown deliveries in due order, and
 * publishing ones (whose worker may have died) by when their lease lapses. They replace the
 * single due_at index, which served neither the OR of the two nor the (due_at, id) order.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
DROP INDEX deliveries_due;
CREATE INDEX deliveries_claimable ON deliveries (due_at, id) WHERE status IN ('queued', 'unknown');
CREATE INDEX deliveries_publishing_lease ON deliveries (lease_expires_at) WHERE status = 'publishing';
`)
)
