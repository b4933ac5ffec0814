import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Analytics roll-ups kept as delivery_metrics changes (docs/analytics.md, "How the roll-ups are
 * kept"), so GET /insights, /top-posts and /best-times read a few thousand rows, not every
 * delivery of the window.
 *
 * metrics_posts: per post with a delivery that went out, its first and last publishing time and
 * whether its deliveries went out in more than one UTC hour (spread). A post that went out within
 * one hour (nearly every post) has its cells: metrics_post_cells, one row per level of the
 * analytics filters (platform, format, both, neither; '*' for "any") with the post's figures at
 * that level: the counts of each coverage class, each metric summed over its deliveries with
 * metrics (null when none reports it: top-posts' value), its platforms and first publishing time.
 * metrics_hours sums the cells per project, level and UTC hour: posts, deliveries, the classes,
 * the totals (0 where none reported) and best-times' samples (cells with engagement recorded).
 *
 * A request sums whole hours after the one its window starts in; the posts of that first hour
 * and the spread posts it answers from delivery_metrics as before. herald_metrics_refresh
 * recomputes the touched posts' cells from delivery_metrics, in the statement that changed them
 * (statement triggers below), under a lock on their metrics_posts rows, and moves each hour by
 * the difference in one ordered upsert. 0014's take-in of inserted deliveries becomes one per
 * statement, so a post's deliveries written together refresh its cells once.
 */
const metrics = ["views", "likes", "comments", "shares", "reach", "saves", "engagement"] as const
/** The columns of delivery_metrics the roll-ups read. */
const rollupColumns = `delivery_id, post_id, platform, format, published_at, synced_at, unreportable_reason, ${metrics.join(", ")}`

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE metrics_posts (
  post_id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  first_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  hour timestamptz NOT NULL,
  spread boolean NOT NULL,
  deliveries integer NOT NULL
);
CREATE INDEX metrics_posts_spread ON metrics_posts (project_id, last_at) WHERE spread;
CREATE INDEX metrics_posts_hour ON metrics_posts (project_id, hour) WHERE NOT spread;

CREATE TABLE metrics_post_cells (
  post_id uuid NOT NULL,
  project_id uuid NOT NULL,
  platform text NOT NULL,
  format text NOT NULL,
  hour timestamptz NOT NULL,
  first_at timestamptz NOT NULL,
  platforms text[] NOT NULL,
  deliveries integer NOT NULL,
  with_metrics integer NOT NULL,
  unreportable integer NOT NULL,
  unsupported integer NOT NULL,
  ${metrics.map((metric) => `${metric} bigint`).join(",\n  ")},
  PRIMARY KEY (post_id, platform, format)
);
${
    metrics.map((metric) =>
      `CREATE INDEX metrics_post_cells_${metric} ON metrics_post_cells (project_id, platform, format, ${metric} DESC NULLS LAST, first_at DESC, post_id DESC);`
    ).join("\n")
  }

CREATE TABLE metrics_hours (
  project_id uuid NOT NULL,
  platform text NOT NULL,
  format text NOT NULL,
  hour timestamptz NOT NULL,
  posts integer NOT NULL,
  deliveries integer NOT NULL,
  with_metrics integer NOT NULL,
  unreportable integer NOT NULL,
  unsupported integer NOT NULL,
  ${metrics.map((metric) => `${metric} bigint NOT NULL`).join(",\n  ")},
  samples integer NOT NULL,
  -- format before platform: a request without a platform reads every platform of one format.
  PRIMARY KEY (project_id, format, platform, hour)
);

-- The cells of the touched posts that went out within one hour, as delivery_metrics has them now.
CREATE FUNCTION herald_metrics_cells(touched uuid[]) RETURNS SETOF metrics_post_cells
LANGUAGE sql STABLE
AS $$
  SELECT d.post_id, d.project_id,
    CASE WHEN grouping(d.platform) = 1 THEN '*' ELSE d.platform END,
    CASE WHEN grouping(d.format) = 1 THEN '*' ELSE d.format END,
    p.hour, min(d.published_at), array_agg(DISTINCT d.platform ORDER BY d.platform),
    count(*)::int,
    count(*) FILTER (WHERE d.format <> 'story' AND d.synced_at IS NOT NULL)::int,
    count(*) FILTER (WHERE d.format = 'story' OR (d.synced_at IS NULL AND d.unreportable_reason IS NOT NULL))::int,
    count(*) FILTER (WHERE d.format = 'story' OR (d.synced_at IS NULL AND d.unreportable_reason = 'unsupported'))::int,
    ${metrics.map((metric) => `sum(d.${metric}) FILTER (WHERE d.format <> 'story' AND d.synced_at IS NOT NULL)`).join(",\n    ")}
  FROM delivery_metrics d JOIN metrics_posts p ON p.post_id = d.post_id
  WHERE d.post_id = ANY (touched) AND NOT p.spread
  GROUP BY GROUPING SETS (
    (d.post_id, d.project_id, p.hour, d.platform, d.format), (d.post_id, d.project_id, p.hour, d.platform),
    (d.post_id, d.project_id, p.hour, d.format), (d.post_id, d.project_id, p.hour)
  )
$$;

CREATE FUNCTION herald_metrics_refresh(touched uuid[]) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  IF cardinality(touched) = 0 THEN RETURN; END IF;
  -- One refresh of a post at a time: its metrics_posts row (made for a new post) is the lock.
  INSERT INTO metrics_posts (post_id, project_id, first_at, last_at, hour, spread, deliveries)
  SELECT DISTINCT ON (post_id) post_id, project_id, published_at, published_at, date_trunc('hour', published_at, 'UTC'), false, 0
  FROM delivery_metrics WHERE post_id = ANY (touched)
  ORDER BY post_id
  ON CONFLICT (post_id) DO NOTHING;
  PERFORM 1 FROM metrics_posts WHERE post_id = ANY (touched) ORDER BY post_id FOR UPDATE;
  DELETE FROM metrics_posts p WHERE p.post_id = ANY (touched) AND NOT EXISTS (SELECT 1 FROM delivery_metrics d WHERE d.post_id = p.post_id);
  UPDATE metrics_posts p
  SET first_at = d.first_at, last_at = d.last_at, hour = date_trunc('hour', d.first_at, 'UTC'),
    spread = date_trunc('hour', d.first_at, 'UTC') <> date_trunc('hour', d.last_at, 'UTC'), deliveries = d.n
  FROM (
    SELECT post_id, min(published_at) AS first_at, max(published_at) AS last_at, count(*)::int AS n
    FROM delivery_metrics WHERE post_id = ANY (touched) GROUP BY post_id
  ) d
  WHERE p.post_id = d.post_id;
  -- Each hour moves by (new cells - old cells), in key order so concurrent refreshes never deadlock.
  WITH gone AS (
    DELETE FROM metrics_post_cells WHERE post_id = ANY (touched) RETURNING *
  ), delta AS (
    SELECT -1 AS sign, * FROM gone
    UNION ALL
    SELECT 1 AS sign, * FROM herald_metrics_cells(touched)
  )
  INSERT INTO metrics_hours AS h (project_id, platform, format, hour, posts, deliveries, with_metrics, unreportable, unsupported,
    ${metrics.join(", ")}, samples)
  SELECT project_id, platform, format, hour, sum(sign)::int, sum(sign * deliveries)::int, sum(sign * with_metrics)::int,
    sum(sign * unreportable)::int, sum(sign * unsupported)::int,
    ${metrics.map((metric) => `coalesce(sum(sign * ${metric}), 0)`).join(", ")},
    (count(*) FILTER (WHERE sign = 1 AND engagement IS NOT NULL) - count(*) FILTER (WHERE sign = -1 AND engagement IS NOT NULL))::int
  FROM delta
  GROUP BY project_id, format, platform, hour
  ORDER BY project_id, format, platform, hour
  ON CONFLICT (project_id, format, platform, hour) DO UPDATE SET
    posts = h.posts + excluded.posts, deliveries = h.deliveries + excluded.deliveries, with_metrics = h.with_metrics + excluded.with_metrics,
    unreportable = h.unreportable + excluded.unreportable, unsupported = h.unsupported + excluded.unsupported,
    ${metrics.map((metric) => `${metric} = h.${metric} + excluded.${metric}`).join(", ")}, samples = h.samples + excluded.samples;
  INSERT INTO metrics_post_cells SELECT * FROM herald_metrics_cells(touched);
END
$$;

-- What a row contributes to the roll-ups: anything else (leases, the schedule, the URL) changes nothing.
CREATE FUNCTION herald_metrics_rows_changed() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM herald_metrics_refresh(ARRAY(SELECT DISTINCT post_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM herald_metrics_refresh(ARRAY(SELECT DISTINCT post_id FROM old_rows));
  ELSE
    -- Set differences, not a join: transition tables have no statistics, and a nested loop over a
    -- large update would be quadratic.
    PERFORM herald_metrics_refresh(ARRAY(
      SELECT DISTINCT post_id FROM (
        (SELECT ${rollupColumns} FROM old_rows EXCEPT SELECT ${rollupColumns} FROM new_rows)
        UNION ALL
        (SELECT ${rollupColumns} FROM new_rows EXCEPT SELECT ${rollupColumns} FROM old_rows)
      ) changed
    ));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER delivery_metrics_rollups_insert AFTER INSERT ON delivery_metrics
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION herald_metrics_rows_changed();
CREATE TRIGGER delivery_metrics_rollups_update AFTER UPDATE ON delivery_metrics
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION herald_metrics_rows_changed();
CREATE TRIGGER delivery_metrics_rollups_delete AFTER DELETE ON delivery_metrics
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION herald_metrics_rows_changed();

-- What went out before this migration.
SELECT herald_metrics_refresh(ARRAY(SELECT DISTINCT post_id FROM delivery_metrics));

-- 0014's take-in, for a set of deliveries: one statement per statement that wrote them (so the
-- roll-ups above refresh once for a post's deliveries, not once per delivery).
CREATE FUNCTION herald_take_in_deliveries(ids uuid[]) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO delivery_metrics (delivery_id, project_id, post_id, position, account_id, platform, username, format, published_at, url, platform_post_id)
  SELECT d.id, d.project_id, d.post_id, d.position, d.account_id, d.platform, d.username,
    CASE p.platform_configurations -> d.platform ->> 'placement' WHEN 'reels' THEN 'reel' WHEN 'stories' THEN 'story' ELSE 'feed' END,
    coalesce(
      (SELECT max((attempt ->> 'finishedAt')::timestamptz) FROM jsonb_array_elements(d.attempts) AS attempt
       WHERE attempt ->> 'outcome' IN ('success', 'reconciled') AND attempt ->> 'finishedAt' IS NOT NULL),
      d.updated_at
    ),
    d.url, d.platform_post_id
  FROM deliveries d JOIN posts p ON p.id = d.post_id
  WHERE d.id = ANY (ids) AND d.status IN ('success', 'taken_down')
  ON CONFLICT (delivery_id) DO NOTHING;
  UPDATE delivery_metrics m
  SET unreportable_reason = 'deleted', unreportable_detail = 'taken down through Herald', unreportable_at = d.updated_at, next_sync_at = NULL
  FROM deliveries d
  WHERE d.id = ANY (ids) AND d.status = 'taken_down' AND m.delivery_id = d.id AND m.unreportable_reason IS NULL;
END
$$;

CREATE OR REPLACE FUNCTION herald_track_delivery_metrics() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM herald_take_in_deliveries(ARRAY[NEW.id]);
  RETURN NULL;
END
$$;

CREATE FUNCTION herald_track_inserted_deliveries() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM herald_take_in_deliveries(ARRAY(SELECT id FROM new_rows WHERE status IN ('success', 'taken_down')));
  RETURN NULL;
END
$$;

-- Inserts: once per statement; a status written later: per row, as 0014 did.
DROP TRIGGER deliveries_track_metrics ON deliveries;
CREATE TRIGGER deliveries_track_metrics
AFTER UPDATE OF status ON deliveries
FOR EACH ROW WHEN (NEW.status IN ('success', 'taken_down'))
EXECUTE FUNCTION herald_track_delivery_metrics();
CREATE TRIGGER deliveries_track_metrics_insert
AFTER INSERT ON deliveries
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
EXECUTE FUNCTION herald_track_inserted_deliveries();

-- An account's own best times read its deliveries alone.
CREATE INDEX delivery_metrics_account ON delivery_metrics (account_id, published_at);
`)
)
