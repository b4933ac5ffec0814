import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every table of the first release. Timestamps are timestamptz (UTC instants); JSONB holds the
 * nested domain values in their encoded (wire) form. Leases are two columns on the leased row.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE projects (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  timezone text NOT NULL,
  approval text NOT NULL CHECK (approval IN ('copilot', 'autopilot')),
  signature text NOT NULL DEFAULT '',
  plan text NOT NULL CHECK (plan IN ('active', 'inactive')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE guardrail_settings (
  project_id uuid PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  settings jsonb NOT NULL
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  prefix text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('agent', 'human')),
  scopes text[] NOT NULL,
  rate_limit_per_minute integer NOT NULL DEFAULT 60 CHECK (rate_limit_per_minute > 0),
  daily_post_cap integer CHECK (daily_post_cap > 0),
  revoked_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX api_keys_project ON api_keys (project_id);

CREATE TABLE social_accounts (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  platform text NOT NULL,
  username text NOT NULL,
  route text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'needs_reconnect', 'disconnected')),
  credentials text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX social_accounts_project ON social_accounts (project_id);

CREATE TABLE media (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('image', 'video', 'document')),
  mime text NOT NULL,
  bytes bigint NOT NULL CHECK (bytes >= 0),
  filename text,
  width integer,
  height integer,
  duration_seconds double precision,
  alt_text text,
  people_tags text[] NOT NULL DEFAULT '{}',
  thumbnail_timestamp_ms integer,
  storage_key text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX media_project ON media (project_id);

CREATE TABLE posts (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  version integer NOT NULL,
  status text NOT NULL,
  caption text,
  signature text NOT NULL,
  skip_signature boolean NOT NULL,
  account_ids uuid[] NOT NULL,
  media_ids uuid[] NOT NULL,
  scheduled_at timestamptz,
  platform_configurations jsonb NOT NULL,
  author_key_id uuid NOT NULL,
  author_kind text NOT NULL,
  decision jsonb,
  supersedes uuid,
  superseded_by uuid,
  idempotency_key text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX posts_listing ON posts (project_id, created_at DESC, id DESC) WHERE superseded_by IS NULL;

CREATE TABLE deliveries (
  id uuid PRIMARY KEY,
  post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  project_id uuid NOT NULL,
  position integer NOT NULL,
  account_id uuid NOT NULL,
  platform text NOT NULL,
  username text NOT NULL,
  status text NOT NULL,
  due_at timestamptz,
  url text,
  platform_post_id text,
  error jsonb,
  note jsonb,
  attempts jsonb NOT NULL,
  takedown jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz
);
CREATE INDEX deliveries_post ON deliveries (post_id, position);
CREATE INDEX deliveries_due ON deliveries (due_at) WHERE status IN ('queued', 'unknown', 'publishing');

-- The idempotency record: one per (project, key). It dies with its post, which frees the key.
CREATE TABLE idempotency_keys (
  project_id uuid NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, key)
);

-- Every post a key created: the daily cap counts it, so it outlives the post.
CREATE TABLE post_creations (
  post_id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  key_id uuid NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX post_creations_key ON post_creations (key_id, created_at);

CREATE TABLE outbox_events (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  kind text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX outbox_events_project ON outbox_events (project_id, created_at);

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  url text NOT NULL,
  secret text NOT NULL,
  kinds text[] NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  consecutive_failures integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_project ON webhook_endpoints (project_id);

CREATE TABLE webhook_sends (
  id uuid PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('pending', 'sent', 'given_up')),
  attempts integer NOT NULL DEFAULT 0,
  due_at timestamptz NOT NULL,
  last_error text,
  finished_at timestamptz,
  lease_owner text,
  lease_expires_at timestamptz,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_sends_due ON webhook_sends (due_at) WHERE status = 'pending';

CREATE TABLE rate_limit_windows (
  key_id uuid PRIMARY KEY,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL
);

CREATE TABLE metric_snapshots (
  delivery_id uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  taken_at timestamptz NOT NULL,
  metrics jsonb NOT NULL,
  PRIMARY KEY (delivery_id, taken_at)
);

CREATE TABLE connection_issues (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  account_id uuid NOT NULL REFERENCES social_accounts (id) ON DELETE CASCADE,
  kind text NOT NULL,
  detail text NOT NULL,
  opened_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE INDEX connection_issues_open ON connection_issues (project_id) WHERE resolved_at IS NULL;

CREATE TABLE worker_heartbeats (
  worker text PRIMARY KEY,
  kind text NOT NULL,
  last_ran_at timestamptz NOT NULL
);
`)
)
