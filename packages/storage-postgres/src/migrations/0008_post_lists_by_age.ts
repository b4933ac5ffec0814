import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Posts and deliveries raise no change notices any more (0006 made them): every notifying
 * transaction takes one shared lock and holds it through its commit, so the dispatcher's commits,
 * a few per delivery, queued behind one another. Lists of posts are kept by age instead
 * (PostListCache).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
DROP TRIGGER posts_change_notice ON posts;
DROP TRIGGER deliveries_change_notice ON deliveries;
`))
