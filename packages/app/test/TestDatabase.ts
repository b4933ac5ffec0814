import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"

/** The PostgreSQL database the PostgreSQL suites use; "" when DATABASE_URL is unset (they are skipped). */
export const databaseUrl = process.env.DATABASE_URL ?? ""

/**
 * A schema of its own on that database (named prefix_<random>): the URL that works in it (its
 * search_path set), for a Herald process or a test, and how to drop it afterwards.
 */
export const throwawaySchema = async (prefix: string) => {
  const schema = `${prefix}_${randomBytes(6).toString("hex")}`
  const scoped = new URL(databaseUrl)
  scoped.searchParams.set("options", `-c search_path=${schema}`)
  const admin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 }))
    ))
  await admin((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  return { url: scoped.toString(), drop: () => admin((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`) }
}
