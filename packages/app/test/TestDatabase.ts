import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"

/** The PostgreSQL server the PostgreSQL suites use; "" when DATABASE_URL is unset (they are skipped). */
export const databaseUrl = process.env.DATABASE_URL ?? ""

const onServer = (statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 }))
    )
  )

/** A new empty database on that server (named prefix_<random>), its URL, and how to drop it. */
export const scratchDatabase = async (prefix: string) => {
  const name = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  await onServer(`CREATE DATABASE ${name}`)
  const url = new URL(databaseUrl)
  url.pathname = `/${name}`
  return { url: url.href, drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}
