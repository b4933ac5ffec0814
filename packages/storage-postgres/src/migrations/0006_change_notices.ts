import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Change notices for the read caches (ChangeNotices): every row written to a cached table raises
 * `<topic>:<project id>` on herald_changes, delivered at commit. Identical notices within one
 * transaction arrive once, so a statement that writes many rows of a project costs one. Columns no
 * read shows (a key's last_used_at, a delivery's lease) raise nothing: they change all the time.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE FUNCTION herald_change_notice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('herald_changes', TG_ARGV[0] || ':' || OLD.project_id::text);
  ELSE
    PERFORM pg_notify('herald_changes', TG_ARGV[0] || ':' || NEW.project_id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION herald_project_change_notice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('herald_changes', 'project:' || OLD.id::text);
  ELSE
    PERFORM pg_notify('herald_changes', 'project:' || NEW.id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER projects_change_notice AFTER INSERT OR UPDATE OR DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION herald_project_change_notice();
CREATE TRIGGER guardrail_settings_change_notice AFTER INSERT OR UPDATE OR DELETE ON guardrail_settings
  FOR EACH ROW EXECUTE FUNCTION herald_change_notice('project');
CREATE TRIGGER social_accounts_change_notice AFTER INSERT OR UPDATE OR DELETE ON social_accounts
  FOR EACH ROW EXECUTE FUNCTION herald_change_notice('accounts');
CREATE TRIGGER api_keys_change_notice
  AFTER INSERT OR UPDATE OF project_id, key_hash, kind, scopes, rate_limit_per_minute, daily_post_cap, revoked_at OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION herald_change_notice('keys');
CREATE TRIGGER posts_change_notice AFTER INSERT OR UPDATE OR DELETE ON posts
  FOR EACH ROW EXECUTE FUNCTION herald_change_notice('posts');
CREATE TRIGGER deliveries_change_notice
  AFTER INSERT OR UPDATE OF status, due_at, url, platform_post_id, error, note, attempts, takedown, updated_at OR DELETE ON deliveries
  FOR EACH ROW EXECUTE FUNCTION herald_change_notice('posts');
`))
