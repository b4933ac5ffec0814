import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A platform's daily API quota spent, per bucket (YouTube: the Google Cloud project of the OAuth
 * client) and quota day (a date in the platform's own time zone), so that every process refuses a
 * call that would overdraw the day before making it.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE platform_quota_usage (
  bucket text NOT NULL,
  day date NOT NULL,
  used integer NOT NULL CHECK (used >= 0),
  PRIMARY KEY (bucket, day)
);
`)
)
