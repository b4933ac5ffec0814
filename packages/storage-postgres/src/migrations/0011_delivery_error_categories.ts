import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Delivery errors (the delivery's own and each attempt's) take the finer categories of core's
 * DeliveryErrorCategory. Each old category maps to the one whose coarser grouping it was, so the
 * receipts and webhooks of old deliveries read as before; platform_error splits by the codes
 * Herald wrote under it (a 403, a route this build cannot serve, a 404), the rest being the
 * 5xx and unreachable networks it mostly held.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE FUNCTION herald_0011_error(error jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE
AS $$
  SELECT CASE WHEN jsonb_typeof(error) IS DISTINCT FROM 'object' THEN error
  ELSE jsonb_set(error, '{category}', to_jsonb(CASE error->>'category'
    WHEN 'media_invalid' THEN 'media_rejected'
    WHEN 'unknown' THEN 'outcome_unknown'
    WHEN 'platform_error' THEN CASE error->>'code'
      WHEN 'account_restricted' THEN 'permission_missing'
      WHEN 'route_unavailable' THEN 'permission_missing'
      WHEN 'not_found' THEN 'not_found'
      ELSE 'transient' END
    ELSE error->>'category' END))
  END
$$;

UPDATE deliveries SET
  error = herald_0011_error(error),
  attempts = (
    SELECT coalesce(jsonb_agg(
      CASE WHEN jsonb_typeof(attempt->'error') = 'object' THEN jsonb_set(attempt, '{error}', herald_0011_error(attempt->'error')) ELSE attempt END
      ORDER BY position
    ), '[]'::jsonb)
    FROM jsonb_array_elements(attempts) WITH ORDINALITY AS items(attempt, position)
  )
WHERE error IS NOT NULL OR jsonb_array_length(attempts) > 0;

DROP FUNCTION herald_0011_error(jsonb);
`)
)
