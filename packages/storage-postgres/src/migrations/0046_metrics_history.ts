import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A delivery's metrics history keeps a point only when its numbers changed (docs/analytics.md,
 * "History"): a sync that finds the same numbers moves synced_at on delivery_metrics and adds no
 * snapshot. Snapshots taken before this rule that repeat the one before them are dropped, so old
 * and new series read alike.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
DELETE FROM metric_snapshots s
USING (
  SELECT delivery_id, taken_at,
    (views, likes, comments, shares, reach, saves) IS NOT DISTINCT FROM
      (lag(views) OVER w, lag(likes) OVER w, lag(comments) OVER w, lag(shares) OVER w, lag(reach) OVER w, lag(saves) OVER w)
      AND lag(taken_at) OVER w IS NOT NULL AS repeated
  FROM metric_snapshots
  WINDOW w AS (PARTITION BY delivery_id ORDER BY taken_at)
) r
WHERE r.repeated AND s.delivery_id = r.delivery_id AND s.taken_at = r.taken_at;
`)
)
