import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { StorageLive } from "../src/index.js"
import { storageContract } from "./contract.js"
import { credentialsKey, throwawaySchema } from "./fixtures.js"

const url = process.env.DATABASE_URL

if (url === undefined || url === "") {
  describe.skip("PostgreSQL (set DATABASE_URL to run)", () => {
    it("skipped", () => {})
  })
} else {
  const { schema, url: scoped } = throwawaySchema(url)
  const schemaLife = Layer.scopedDiscard(
    Effect.acquireRelease(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
      () => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`).pipe(Effect.orDie)
    )
  ).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))

  storageContract(
    "PostgreSQL",
    StorageLive.layer({ databaseUrl: Option.some(Redacted.make(scoped)), dataDir: "unused", credentialsKey }).pipe(
      Layer.provide(schemaLife)
    )
  )
}
