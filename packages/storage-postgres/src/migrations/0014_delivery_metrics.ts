import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Analytics (docs/analytics.md). delivery_metrics: one row per delivery that went out, taken in by
 * a trigger when the delivery is written as success (or taken_down), whichever path wrote it, with
 * its publishing time and format fixed then; it carries the latest numbers, the sync schedule's
 * state and the sync worker's lease. metric_snapshots: every fetch, the time series. A platform's
 * rate limit pauses its claims for every worker (metrics_platform_pauses).
 *
 * begun false: never tried, due first_after past published_at (the schedule is the app's config,
 * so it is applied at claim time). begun true: next_sync_at is the next try, null for none.
 * engagement = likes + comments + shares + saves over those reported, null when none is (core's
 * engagementOf). The metric_snapshots of 0001 (one jsonb per fetch) was never written: it is
 * replaced by one with a column per count, which the roll-ups read.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE delivery_metrics (
  delivery_id uuid PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
  project_id uuid NOT NULL,
  post_id uuid NOT NULL,
  position integer NOT NULL,
  account_id uuid NOT NULL,
  platform text NOT NULL,
  username text NOT NULL,
  format text NOT NULL,
  published_at timestamptz NOT NULL,
  url text,
  platform_post_id text,
  begun boolean NOT NULL DEFAULT false,
  next_sync_at timestamptz,
  synced_at timestamptz,
  views bigint,
  likes bigint,
  comments bigint,
  shares bigint,
  reach bigint,
  saves bigint,
  engagement bigint GENERATED ALWAYS AS (
    CASE WHEN likes IS NULL AND comments IS NULL AND shares IS NULL AND saves IS NULL THEN NULL
    ELSE coalesce(likes, 0) + coalesce(comments, 0) + coalesce(shares, 0) + coalesce(saves, 0) END
  ) STORED,
  unreportable_reason text,
  unreportable_detail text,
  unreportable_at timestamptz,
  lease_owner text,
  lease_expires_at timestamptz
);
CREATE INDEX delivery_metrics_window ON delivery_metrics (project_id, published_at);
CREATE INDEX delivery_metrics_post ON delivery_metrics (post_id, position);
CREATE INDEX delivery_metrics_first ON delivery_metrics (published_at) WHERE NOT begun AND unreportable_reason IS NULL;
CREATE INDEX delivery_metrics_next ON delivery_metrics (next_sync_at) WHERE begun AND next_sync_at IS NOT NULL;

DROP TABLE metric_snapshots;
CREATE TABLE metric_snapshots (
  delivery_id uuid NOT NULL REFERENCES delivery_metrics (delivery_id) ON DELETE CASCADE,
  taken_at timestamptz NOT NULL,
  views bigint,
  likes bigint,
  comments bigint,
  shares bigint,
  reach bigint,
  saves bigint,
  PRIMARY KEY (delivery_id, taken_at)
);

CREATE TABLE metrics_platform_pauses (
  platform text PRIMARY KEY,
  until timestamptz NOT NULL
);

CREATE FUNCTION herald_track_delivery_metrics() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO delivery_metrics (delivery_id, project_id, post_id, position, account_id, platform, username, format, published_at, url, platform_post_id)
  SELECT NEW.id, NEW.project_id, NEW.post_id, NEW.position, NEW.account_id, NEW.platform, NEW.username,
    CASE p.platform_configurations -> NEW.platform ->> 'placement' WHEN 'reels' THEN 'reel' WHEN 'stories' THEN 'story' ELSE 'feed' END,
    coalesce(
      (SELECT max((attempt ->> 'finishedAt')::timestamptz) FROM jsonb_array_elements(NEW.attempts) AS attempt
       WHERE attempt ->> 'outcome' IN ('success', 'reconciled') AND attempt ->> 'finishedAt' IS NOT NULL),
      NEW.updated_at
    ),
    NEW.url, NEW.platform_post_id
  FROM posts p WHERE p.id = NEW.post_id
  ON CONFLICT (delivery_id) DO NOTHING;
  IF NEW.status = 'taken_down' THEN
    UPDATE delivery_metrics
    SET unreportable_reason = 'deleted', unreportable_detail = 'taken down through Herald', unreportable_at = NEW.updated_at, next_sync_at = NULL
    WHERE delivery_id = NEW.id AND unreportable_reason IS NULL;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER deliveries_track_metrics
AFTER INSERT OR UPDATE OF status ON deliveries
FOR EACH ROW WHEN (NEW.status IN ('success', 'taken_down'))
EXECUTE FUNCTION herald_track_delivery_metrics();

-- Deliveries that went out before this migration.
INSERT INTO delivery_metrics (delivery_id, project_id, post_id, position, account_id, platform, username, format, published_at, url, platform_post_id,
  unreportable_reason, unreportable_detail, unreportable_at)
SELECT d.id, d.project_id, d.post_id, d.position, d.account_id, d.platform, d.username,
  CASE p.platform_configurations -> d.platform ->> 'placement' WHEN 'reels' THEN 'reel' WHEN 'stories' THEN 'story' ELSE 'feed' END,
  coalesce(
    (SELECT max((attempt ->> 'finishedAt')::timestamptz) FROM jsonb_array_elements(d.attempts) AS attempt
     WHERE attempt ->> 'outcome' IN ('success', 'reconciled') AND attempt ->> 'finishedAt' IS NOT NULL),
    d.updated_at
  ),
  d.url, d.platform_post_id,
  CASE WHEN d.status = 'taken_down' THEN 'deleted' END,
  CASE WHEN d.status = 'taken_down' THEN 'taken down through Herald' END,
  CASE WHEN d.status = 'taken_down' THEN d.updated_at END
FROM deliveries d JOIN posts p ON p.id = d.post_id
WHERE d.status IN ('success', 'taken_down');
`)
)
