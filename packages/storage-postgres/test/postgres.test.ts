import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it, layer } from "@effect/vitest"
import {
  DeliveryId,
  PostChange,
  PostStore
} from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { StorageLive } from "../src/index.js"
import { storageContract } from "./contract.js"
import { credentialsKey, newPost, newProject, t0, throwawaySchema } from "./fixtures.js"

const url = process.env.DATABASE_URL

if (url === undefined || url === "") {
  describe.skip("PostgreSQL (set DATABASE_URL to run)", () => {
    it("skipped", () => {})
  })
} else {
  /** The storage on a schema of its own, dropped when the layer closes. */
  const storageOnThrowawaySchema = (url: string) => {
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

  storageContract("PostgreSQL", storageOnThrowawaySchema(url))

  layer(storageOnThrowawaySchema(url), { timeout: 30_000 })("PostgreSQL writes", (it) => {
    it.effect("an update writes the deliveries that changed, inserts new ones and leaves the others' rows alone", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const sql = yield* SqlClient.SqlClient
        const project = newProject()
        const input = newPost({ projectId: project.id, deliveries: 2 })
        yield* posts.create(input)
        const [first, second] = input.record.deliveries
        const versions = Effect.orDie(sql<{ readonly id: string; readonly xmin: string }>`
          SELECT id, xmin::text FROM deliveries WHERE post_id = ${input.record.post.id}`).pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.id, row.xmin])))
        )
        const before = yield* versions
        const added = first!.with({ id: DeliveryId.make(randomUUID()), status: "queued" })
        const changed = second!.with({ status: "success", url: "https://x.test/2", updatedAt: DateTime.add(t0, { minutes: 1 }) })
        yield* posts.commit(PostChange.Update({
          expectedVersion: 1,
          record: { post: input.record.post.with({ version: 2 }), deliveries: [first!, changed, added] },
          events: []
        }))
        const after = yield* versions
        expect(after.get(first!.id)).toBe(before.get(first!.id))
        expect(after.get(second!.id)).not.toBe(before.get(second!.id))
        expect(after.has(added.id)).toBe(true)
        const record = Option.getOrThrow(yield* posts.find(project.id, input.record.post.id))
        expect(record.deliveries.map((delivery) => [delivery.id, delivery.status, delivery.url])).toEqual([
          [first!.id, first!.status, null],
          [second!.id, "success", "https://x.test/2"],
          [added.id, "queued", null]
        ])
      }))
  })
}
