import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { StorageLive } from "../src/index.js"
import { storageContract } from "./contract.js"
import { credentialsKey } from "./fixtures.js"

const url = process.env.DATABASE_URL

if (url === undefined || url === "") {
  describe.skip("PostgreSQL (set DATABASE_URL to run)", () => {
    it("skipped", () => {})
  })
} else {
  // A schema of its own, so this file runs beside others on one database and leaves nothing behind.
  const schema = `herald_test_${randomBytes(6).toString("hex")}`
  const scoped = new URL(url)
  scoped.searchParams.set("options", `-c search_path=${schema}`)
  const schemaLife = Layer.scopedDiscard(
    Effect.acquireRelease(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
      () => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`).pipe(Effect.orDie)
    )
  ).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))

  storageContract(
    "PostgreSQL",
    StorageLive.layer({ databaseUrl: Option.some(Redacted.make(scoped.toString())), dataDir: "unused", credentialsKey }).pipe(
      Layer.provide(schemaLife)
    )
  )
}
