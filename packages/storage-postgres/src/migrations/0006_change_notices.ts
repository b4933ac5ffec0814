import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Change notices for the read caches (ChangeNotices): every row written to projects, guardrail
 * settings, accounts and keys raises `<topic>:<project id>` on herald_changes, delivered at commit.
 * Identical notices within one transaction arrive once. A key's last_used_at raises nothing: it
 * changes all the time. Posts and deliveries raise nothing either: every notifying transaction
 * takes one shared lock through its commit, which would queue the dispatcher's commits behind one
 * another (lists of posts are kept by age instead, PostListCache).
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
`))
