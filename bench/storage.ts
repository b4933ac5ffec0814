// Create-post transactions per second through PostStore.create, beside a bare INSERT of the same
// rows through the same client in the same run. The ratio (repository / bare) is the figure;
// target >= 0.5. Runs on the embedded PGlite store, and on PostgreSQL when DATABASE_URL is set.
//   npx tsx --conditions=herald-source bench/storage.ts
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import {
  AccountId,
  ApiKeyId,
  Delivery,
  DeliveryId,
  EventId,
  type NewPost,
  OutboxEvent,
  Post,
  PostId,
  PostStore,
  ProjectId
} from "@herald/core"
import { StorageLive } from "@herald/storage-postgres"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { deliveryToRow, eventToRow, postToRow } from "../packages/storage-postgres/src/Rows.js"

const phaseMillis = 4_000
const warmup = 50

const projectId = ProjectId.make(randomUUID())
const keyId = ApiKeyId.make(randomUUID())
const now = DateTime.unsafeMake("2030-01-15T10:00:00.000Z")

/** A realistic create: two deliveries, one outbox event, an idempotency key and a daily cap. */
const newPost = (index: number): NewPost => {
  const id = PostId.make(randomUUID())
  const accountIds = [AccountId.make(randomUUID()), AccountId.make(randomUUID())]
  const post = new Post({
    id,
    projectId,
    version: 1,
    status: "processing",
    caption: `Post number ${index} from the storage benchmark`,
    signature: "",
    skipSignature: false,
    accountIds,
    mediaIds: [],
    scheduledAt: null,
    platformConfigurations: { x: { reply_settings: "everyone" } },
    author: { keyId, keyName: "bench", kind: "agent", surface: "rest" },
    origin: { keyId, keyName: "bench", kind: "agent", surface: "rest" },
    decision: null,
    supersedes: null,
    supersededBy: null,
    idempotencyKey: `bench-${id}`,
    createdAt: now,
    updatedAt: now
  })
  const deliveries = accountIds.map((accountId, position) =>
    new Delivery({
      id: DeliveryId.make(randomUUID()),
      postId: id,
      projectId,
      accountId,
      platform: "x",
      username: `account${position}`,
      status: "queued",
      dueAt: now,
      url: null,
      platformPostId: null,
      error: null,
      note: null,
      attempts: [],
      takedown: null,
      createdAt: now,
      updatedAt: now
    })
  )
  const event = new OutboxEvent({ id: EventId.make(randomUUID()), projectId, kind: "post.approved", createdAt: now, data: { post: { id } } })
  return {
    record: { post, deliveries },
    events: [event],
    idempotency: { key: `bench-${id}`, fingerprint: "f" },
    dailyCap: { keyId, cap: 1_000_000_000, since: DateTime.subtract(now, { days: 1 }), resetAt: DateTime.add(now, { days: 1 }) }
  }
}

/** The same rows with plain INSERTs in one transaction: no idempotency check, no cap lock, no fan-out. */
const bareInsert = (sql: SqlClient.SqlClient, input: NewPost) =>
  sql.withTransaction(Effect.gen(function*() {
    const { post } = input.record
    yield* sql`INSERT INTO idempotency_keys (project_id, key, fingerprint, post_id, created_at)
      VALUES (${post.projectId}, ${input.idempotency!.key}, ${input.idempotency!.fingerprint}, ${post.id}, ${DateTime.formatIso(now)})`
    yield* sql`INSERT INTO posts ${sql.insert(postToRow(post))}`
    yield* sql`INSERT INTO deliveries ${sql.insert(input.record.deliveries.map(deliveryToRow))}`
    yield* sql`INSERT INTO post_creations (post_id, project_id, key_id, created_at)
      VALUES (${post.id}, ${post.projectId}, ${keyId}, ${DateTime.formatIso(now)})`
    yield* sql`INSERT INTO outbox_events ${sql.insert(input.events.map(eventToRow))}`
  }))

/** Runs one kind of transaction back to back for phaseMillis; returns transactions per second. */
const rate = (run: (index: number) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    for (let i = 0; i < warmup; i++) yield* run(i)
    const started = performance.now()
    let done = 0
    while (performance.now() - started < phaseMillis) {
      yield* run(done)
      done++
    }
    return done / ((performance.now() - started) / 1000)
  })

const measure = (name: string) =>
  Effect.gen(function*() {
    const posts = yield* PostStore
    const sql = yield* SqlClient.SqlClient
    const repository = yield* rate((i) => posts.create(newPost(i)))
    const bare = yield* rate((i) => bareInsert(sql, newPost(i)))
    const ratio = repository / bare
    console.log(
      `${name.padEnd(10)} repository ${repository.toFixed(0).padStart(6)} tx/s   bare INSERT ${bare.toFixed(0).padStart(6)} tx/s   ratio ${
        ratio.toFixed(2)
      } ${ratio >= 0.5 ? "(target >= 0.5 met)" : "(BELOW the 0.5 target)"}`
    )
  })

const credentialsKey = Redacted.make(randomBytes(32).toString("base64"))

const pglite = Effect.gen(function*() {
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-bench-"))
  yield* measure("PGlite").pipe(
    Effect.provide(StorageLive.layer({ databaseUrl: Option.none(), dataDir, credentialsKey })),
    Effect.ensuring(Effect.sync(() => Fs.rmSync(dataDir, { recursive: true, force: true })))
  )
})

const postgres = (url: string) => {
  const schema = `herald_bench_${randomBytes(6).toString("hex")}`
  const scoped = new URL(url)
  scoped.searchParams.set("options", `-c search_path=${schema}`)
  const schemaLife = Layer.scopedDiscard(Effect.acquireRelease(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
    () => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`).pipe(Effect.orDie)
  )).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
  return measure("PostgreSQL").pipe(
    Effect.provide(
      StorageLive.layer({ databaseUrl: Option.some(Redacted.make(scoped.toString())), dataDir: "unused", credentialsKey }).pipe(
        Layer.provide(schemaLife)
      )
    )
  )
}

const url = process.env.DATABASE_URL
console.log(`create-post transactions, one at a time, ${phaseMillis / 1000} s per measurement (2 deliveries, 1 event, idempotency key, daily cap)`)
await Effect.runPromise(Effect.gen(function*() {
  yield* pglite
  if (url !== undefined && url !== "") yield* postgres(url)
  else console.log("PostgreSQL skipped: set DATABASE_URL to measure it")
}))
