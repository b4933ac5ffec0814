import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The picture stream's codec ffprobe reports (null for documents, and for rows stored before it). */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`ALTER TABLE media ADD COLUMN codec text;`))
