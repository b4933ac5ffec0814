import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import {
  CreateOutcome,
  DailyCapReached,
  IdempotencyKeyReused,
  type NewPost,
  type OutboxEvent,
  type PostChange,
  type PostRecord,
  PostStore,
  StaleWrite
} from "@herald/core"
import { Array as Arr, DateTime, Effect, Either, Layer, Option } from "effect"
import { orDieInfra } from "./Infra.js"
import { eventWrites, writeAll } from "./OutboxWrites.js"
import { deliveryFromRow, type DeliveryRow, deliveryToRow, postFromRow, type PostRow, postToRow } from "./Rows.js"
import { Wakeups } from "./Wakeups.js"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups

  /**
   * Posts with their deliveries in one round trip: each post carries its deliveries as a JSON
   * array in position order. `posts` is the SELECT of the posts table that picks them; `order`
   * orders the result again, as the outer query keeps no order of its own.
   */
  const withDeliveries = (posts: Statement.Fragment, order: Statement.Fragment = sql.literal("")) =>
    sql<PostRow & { readonly deliveries: ReadonlyArray<DeliveryRow> }>`
      SELECT p.*, COALESCE(
        (SELECT json_agg(d ORDER BY d.position) FROM deliveries d WHERE d.post_id = p.id), '[]'
      ) AS deliveries
      FROM (${posts}) p ${order}`.pipe(
        Effect.flatMap((rows) =>
          Either.all(rows.map((row) =>
            Either.all({ post: postFromRow(row), deliveries: Either.all(row.deliveries.map(deliveryFromRow)) })
          ))
        )
      )

  const newestFirst = sql.literal("ORDER BY created_at DESC, id DESC")

  const findWhere = (condition: Statement.Fragment) =>
    withDeliveries(sql`SELECT * FROM posts WHERE ${condition}`).pipe(Effect.map(Arr.head))

  /** Every row of a new post (the post, its deliveries, its creation record, its events) as WITH items. */
  const newPostWrites = ({ events, record }: NewPost) => {
    const { post } = record
    return [
      sql`new_post AS (INSERT INTO posts ${sql.insert(postToRow(post))})`,
      ...(record.deliveries.length === 0
        ? []
        : [sql`new_deliveries AS (INSERT INTO deliveries ${sql.insert(record.deliveries.map(deliveryToRow))})`]),
      sql`creation AS (INSERT INTO post_creations ${
        sql.insert({
          post_id: post.id,
          project_id: post.projectId,
          key_id: post.author.keyId,
          created_at: DateTime.formatIso(post.createdAt)
        })
      })`,
      ...eventWrites(sql, events)
    ]
  }

  /** The body of a create: its claims (in the caller's transaction), then one statement that writes it all. */
  const writeNew = (input: NewPost): Effect.Effect<CreateOutcome, IdempotencyKeyReused | DailyCapReached | import("@effect/sql").SqlError.SqlError | import("effect").ParseResult.ParseError> =>
    Effect.gen(function*() {
      const { post } = input.record
      if (input.idempotency !== null) {
        const { fingerprint, key } = input.idempotency
        // A concurrent create holding the same key makes this wait for its outcome.
        const claimed = yield* sql`
          INSERT INTO idempotency_keys (project_id, key, fingerprint, post_id, created_at)
          VALUES (${post.projectId}, ${key}, ${fingerprint}, ${post.id}, ${DateTime.formatIso(post.createdAt)})
          ON CONFLICT (project_id, key) DO NOTHING
          RETURNING post_id`
        if (claimed.length === 0) {
          const earlier = yield* sql<{ readonly fingerprint: string; readonly post_id: string }>`
            SELECT fingerprint, post_id FROM idempotency_keys WHERE project_id = ${post.projectId} AND key = ${key}`
          // Its post was deleted in between, which freed the key: claim it again.
          if (earlier[0] === undefined) return yield* writeNew(input)
          if (earlier[0].fingerprint !== fingerprint) return yield* new IdempotencyKeyReused({ key })
          const first = yield* findWhere(sql.and([sql`id = ${earlier[0].post_id}`]))
          return CreateOutcome.Repeated({ record: Option.getOrThrow(first) })
        }
      }
      if (input.dailyCap !== null) {
        const { cap, keyId, resetAt, since } = input.dailyCap
        // Serialises creates by one key, so two cannot both take the last slot.
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${keyId}, 0))`
        const [used] = yield* sql<{ readonly count: number }>`
          SELECT count(*)::int AS count FROM post_creations
          WHERE key_id = ${keyId} AND created_at >= ${DateTime.formatIso(since)}`
        if ((used?.count ?? 0) >= cap) return yield* new DailyCapReached({ cap, resetAt })
      }
      yield* writeAll(sql, newPostWrites(input))
      return CreateOutcome.Created({ record: input.record })
    })

  const signalAfter = (records: ReadonlyArray<PostRecord>, events: ReadonlyArray<OutboxEvent>) =>
    Effect.all([
      records.some((record) => record.deliveries.some((delivery) => delivery.status === "queued"))
        ? wakeups.signal("deliveries")
        : Effect.void,
      events.length > 0 ? wakeups.signal("outbox") : Effect.void
    ], { discard: true })

  const stale = (postId: string) => new StaleWrite({ postId })

  /**
   * Every part of a WITH statement runs, so when the post was removed meanwhile its deliveries'
   * upsert meets the foreign key before the version check can answer: that is a stale write too.
   */
  const missingPost = (error: SqlError.SqlError) =>
    (error.cause as { readonly code?: unknown } | undefined)?.code === "23503"

  const applyChange = (change: PostChange) =>
    Effect.gen(function*() {
      switch (change._tag) {
        case "Update": {
          const { post } = change.record
          const { id, ...columns } = postToRow(post)
          const rows = change.record.deliveries.map(deliveryToRow)
          // One statement: the version check reads `updated` first (so the post row is locked
          // before its deliveries, as everywhere else); a stale version fails the transaction,
          // which undoes the other items' writes.
          const [written] = yield* sql<{ readonly updated: number }>`
            ${
            sql.csv("WITH", [
              sql`updated AS (
                UPDATE posts SET ${sql.update(columns)}
                WHERE id = ${id} AND version = ${change.expectedVersion} RETURNING id)`,
              ...(rows.length === 0 ? [] : [sql`kept AS (
                INSERT INTO deliveries ${sql.insert(rows)}
                ON CONFLICT (id) DO UPDATE SET
                  position = EXCLUDED.position, status = EXCLUDED.status, due_at = EXCLUDED.due_at,
                  url = EXCLUDED.url, platform_post_id = EXCLUDED.platform_post_id, error = EXCLUDED.error,
                  note = EXCLUDED.note, attempts = EXCLUDED.attempts, takedown = EXCLUDED.takedown,
                  updated_at = EXCLUDED.updated_at)`]),
              sql`dropped AS (DELETE FROM deliveries WHERE post_id = ${id}${
                rows.length === 0 ? sql.literal("") : sql` AND id NOT IN ${sql.in(rows.map((row) => row.id))}`
              })`,
              ...eventWrites(sql, change.events)
            ])
          }
            SELECT count(*)::int AS updated FROM updated`.pipe(
            Effect.catchIf(missingPost, () => Effect.fail(stale(post.id)))
          )
          if (written?.updated !== 1) return yield* stale(post.id)
          return
        }
        case "Supersede": {
          const successor = change.successor.record.post
          const marked = yield* sql`
            UPDATE posts SET superseded_by = ${successor.id}, version = version + 1,
              updated_at = ${DateTime.formatIso(successor.createdAt)}
            WHERE id = ${change.previous.id} AND version = ${change.expectedVersion} RETURNING id`
          if (marked.length === 0) return yield* stale(change.previous.id)
          // commit can only fail with StaleWrite: a successor refused by its own claims is a
          // broken use case (it checks the cap and key before building the change).
          const outcome = yield* Effect.orDie(writeNew(change.successor))
          if (outcome._tag === "Repeated") {
            return yield* Effect.dieMessage(
              `successor of post ${change.previous.id} reuses an idempotency key already bound to post ${outcome.record.post.id}`
            )
          }
          return
        }
        case "Remove": {
          const removed = yield* sql`
            DELETE FROM posts WHERE id = ${change.postId} AND version = ${change.expectedVersion} RETURNING id`
          if (removed.length === 0) return yield* stale(change.postId)
          return
        }
      }
    })

  return PostStore.of({
    create: Effect.fn("PostStore.create")(function*(input: NewPost) {
      // Without claims to check first, a create is one statement, atomic on its own: a
      // transaction would only add BEGIN and COMMIT round trips.
      const unclaimed = input.idempotency === null && input.dailyCap === null
      const outcome = yield* orDieInfra(unclaimed ? writeNew(input) : sql.withTransaction(writeNew(input)))
      if (outcome._tag === "Created") yield* signalAfter([outcome.record], input.events)
      return outcome
    }),
    findIdempotent: Effect.fn("PostStore.findIdempotent")(function*(projectId, key) {
      const [earlier] = yield* orDieInfra(sql<{ readonly fingerprint: string; readonly post_id: string }>`
        SELECT fingerprint, post_id FROM idempotency_keys WHERE project_id = ${projectId} AND key = ${key}`)
      if (earlier === undefined) return Option.none()
      const record = yield* orDieInfra(findWhere(sql.and([sql`id = ${earlier.post_id}`])))
      return Option.map(record, (record) => ({ record, fingerprint: earlier.fingerprint }))
    }),
    find: Effect.fn("PostStore.find")((projectId, id) =>
      orDieInfra(findWhere(sql.and([sql`project_id = ${projectId}`, sql`id = ${id}`])))
    ),
    findByDelivery: Effect.fn("PostStore.findByDelivery")((projectId, id) =>
      orDieInfra(findWhere(sql.and([
        sql`project_id = ${projectId}`,
        sql`id = (SELECT post_id FROM deliveries WHERE id = ${id} AND project_id = ${projectId})`
      ])))
    ),
    list: Effect.fn("PostStore.list")((projectId, query) =>
      orDieInfra(
        withDeliveries(
          sql`
            SELECT * FROM posts
            WHERE ${
            sql.and([
              sql`project_id = ${projectId}`,
              sql`superseded_by IS NULL`,
              ...(query.statuses === null ? [] : [query.statuses.length === 0 ? sql`false` : sql`status IN ${sql.in(query.statuses)}`])
            ])
          }
            ${newestFirst} LIMIT ${query.limit}`,
          newestFirst
        )
      )
    ),
    commit: Effect.fn("PostStore.commit")(function*(change: PostChange) {
      yield* orDieInfra(sql.withTransaction(applyChange(change)))
      switch (change._tag) {
        case "Update":
          return yield* signalAfter([change.record], change.events)
        case "Supersede":
          return yield* signalAfter([change.successor.record], change.successor.events)
        case "Remove":
          return
      }
    }),
    createdSince: Effect.fn("PostStore.createdSince")((keyId, since) =>
      orDieInfra(
        sql<{ readonly count: number }>`
          SELECT count(*)::int AS count FROM post_creations
          WHERE key_id = ${keyId} AND created_at >= ${DateTime.formatIso(since)}`
      ).pipe(Effect.map((rows) => rows[0]?.count ?? 0))
    )
  })
})

export const PostgresPostStore = Layer.effect(PostStore, make)
