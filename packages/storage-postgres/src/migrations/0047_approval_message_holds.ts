import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A post held again under the same id (a scheduled post unscheduled back to pending approval) is
 * a new hold its reviewers must hear of: messages are owed per hold, which the post's version
 * names (every change bumps it, and a held post changes only by leaving the hold). Messages queued
 * before take their post's version now, so nothing already announced is announced again.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE approval_messages ADD COLUMN post_version integer NOT NULL DEFAULT 0;
UPDATE approval_messages m SET post_version = p.version FROM posts p WHERE p.id = m.post_id;
ALTER TABLE approval_messages ALTER COLUMN post_version DROP DEFAULT;
ALTER TABLE approval_messages DROP CONSTRAINT approval_messages_post_id_channel_id_key;
ALTER TABLE approval_messages ADD CONSTRAINT approval_messages_hold UNIQUE (post_id, channel_id, post_version);
`)
)
