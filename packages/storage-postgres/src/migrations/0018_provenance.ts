import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Provenance (docs/provenance.md): each post row names the key that wrote it as it was then (its
 * name, and the surface the request came through: rest, mcp or sdk), and the key that created
 * the post's first version (origin_*, carried along a chain of edits).
 *
 * Rows written before: author_key_name and author_surface stay null (unknown: Herald did not
 * record them). origin is recovered from the chain of edits where it is still whole (the first
 * version's author_key_id and author_kind), else the row's own author; its name and surface are
 * null as well. A decision's and a takedown's key name and surface live in their JSONB and read
 * as null where absent.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE posts
  ADD COLUMN author_key_name text,
  ADD COLUMN author_surface text CHECK (author_surface IN ('rest', 'mcp', 'sdk')),
  ADD COLUMN origin_key_id uuid,
  ADD COLUMN origin_key_name text,
  ADD COLUMN origin_kind text CHECK (origin_kind IN ('agent', 'human')),
  ADD COLUMN origin_surface text CHECK (origin_surface IN ('rest', 'mcp', 'sdk'));

WITH RECURSIVE chain AS (
  SELECT p.id, p.author_key_id AS key_id, p.author_kind AS kind FROM posts p
  WHERE p.supersedes IS NULL OR NOT EXISTS (SELECT 1 FROM posts q WHERE q.id = p.supersedes)
  UNION ALL
  SELECT p.id, c.key_id, c.kind FROM posts p JOIN chain c ON p.supersedes = c.id
)
UPDATE posts p SET origin_key_id = c.key_id, origin_kind = c.kind FROM chain c WHERE p.id = c.id;
UPDATE posts SET origin_key_id = author_key_id, origin_kind = author_kind WHERE origin_key_id IS NULL;

ALTER TABLE posts ALTER COLUMN origin_key_id SET NOT NULL, ALTER COLUMN origin_kind SET NOT NULL;
`)
)
