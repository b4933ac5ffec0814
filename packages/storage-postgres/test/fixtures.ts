import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { StorageLive } from "../src/index.js"

export { at, newAccount, newEndpoint, newKeyId, newPost, newProject, type PostSpec, t0 } from "@herald/core/storage-contract"

export const credentialsKey = Redacted.make(randomBytes(32).toString("base64"))

/**
 * A schema of its own on the database `url` names, so a file runs beside others on one database
 * and leaves nothing behind: its name, and the url with it as the search path.
 */
export const throwawaySchema = (url: string) => {
  const schema = `herald_test_${randomBytes(6).toString("hex")}`
  const scoped = new URL(url)
  scoped.searchParams.set("options", `-c search_path=${schema}`)
  return { schema, url: scoped.toString() }
}

/** The storage on a schema of its own, dropped when the layer closes. */
export const storageOnThrowawaySchema = (url: string) => {
  const { schema, url: scoped } = throwawaySchema(url)
  const schemaLife = Layer.scopedDiscard(
    Effect.acquireRelease(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
      () => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`).pipe(Effect.orDie)
    )
  ).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
  return StorageLive.layer({ databaseUrl: Option.some(Redacted.make(scoped)), dataDir: "unused", credentialsKey }).pipe(
    Layer.provide(schemaLife)
  )
}
