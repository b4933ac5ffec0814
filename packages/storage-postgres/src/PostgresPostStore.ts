import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import {
  batching,
  CreateOutcome,
  DailyCapReached,
  IdempotencyKeyReused,
  type NewPost,
  type PostChange,
  type PostRecord,
  PostStore,
  type PostUpdate,
  StaleWrite,
  traced
} from "@herald/core"
import { Array as Arr, DateTime, Effect, Either, Exit, Layer, Option } from "effect"
import { orDieInfra } from "./Infra.js"
import { eventWritesFrom, whenFannedOut, writeAll } from "./OutboxWrites.js"
import {
  deliveryColumns,
  deliveryFromRow,
  type DeliveryRow,
  eventColumns,
  postColumns,
  postFromRow,
  type PostRow
} from "./Rows.js"
import { type WakeupChannel, Wakeups } from "./Wakeups.js"

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

  /**
   * Every row of new posts (each post, its deliveries, its creation record, its events) as WITH
   * items: rows travel as one JSON parameter per table, so any number of posts is one statement.
   */
  const newPostsWrites = (inputs: ReadonlyArray<NewPost>) => {
    const posts = inputs.map(({ record }) => postColumns(record.post))
    const deliveries = inputs.flatMap(({ record }) => record.deliveries.map(deliveryColumns))
    const creations = inputs.map(({ record: { post } }) => ({
      post_id: post.id,
      project_id: post.projectId,
      key_id: post.author.keyId,
      created_at: DateTime.formatIso(post.createdAt)
    }))
    const events = inputs.flatMap((input) => input.events.map(eventColumns))
    const rowsOf = (table: string, rows: ReadonlyArray<object>) => {
      const names = sql.literal(Object.keys(rows[0]!).join(", "))
      return sql`(${names}) SELECT ${names} FROM json_populate_recordset(NULL::${sql.literal(table)}, ${JSON.stringify(rows)}::json)`
    }
    return [
      sql`new_posts AS (INSERT INTO posts ${rowsOf("posts", posts)})`,
      ...(deliveries.length === 0 ? [] : [sql`new_deliveries AS (INSERT INTO deliveries ${rowsOf("deliveries", deliveries)})`]),
      sql`creations AS (INSERT INTO post_creations ${rowsOf("post_creations", creations)})`,
      ...(events.length === 0 ? [] : eventWritesFrom(sql, rowsOf("outbox_events", events)))
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
      yield* writeAll(sql, newPostsWrites([input]))
      return CreateOutcome.Created({ record: input.record })
    })

  /** The wake-ups a commit of these records owes: workers when a delivery is queued, senders when events were written. */
  const channelsOf = (records: ReadonlyArray<PostRecord>, events: boolean): ReadonlyArray<WakeupChannel> => [
    ...(records.some((record) => record.deliveries.some((delivery) => delivery.status === "queued")) ? ["deliveries" as const] : []),
    ...(events ? ["outbox" as const] : [])
  ]

  const signalAfter = (records: ReadonlyArray<PostRecord>, events: ReadonlyArray<unknown>) =>
    Effect.forEach(channelsOf(records, events.length > 0), wakeups.signal, { discard: true })

  /** The wake-ups a statement written with `eventWritesFrom` raises itself (the outbox's only for events fanned out). */
  const inStatement = (channels: ReadonlyArray<WakeupChannel>) =>
    channels.flatMap((channel) => {
      const notice = wakeups.inStatement(channel)
      if (notice === null) return []
      return [channel === "deliveries" ? notice : whenFannedOut(sql, notice)]
    })

  /**
   * Creates without claims to check, in batches: those that arrive while a batch is being written
   * go out together in the next, as one statement with its wake-ups (one round trip and one commit
   * for all of them). A statement is atomic, so a batch the database refuses is written again post
   * by post, and only the post at fault fails.
   */
  const writeBatch = (inputs: ReadonlyArray<NewPost>): Effect.Effect<ReadonlyArray<Exit.Exit<void, SqlError.SqlError>>> => {
    const records = inputs.map((input) => input.record)
    const events = inputs.flatMap((input) => input.events)
    const channels = channelsOf(records, events.length > 0)
    const notices = inStatement(channels)
    return sql`${sql.csv("WITH", newPostsWrites(inputs))} SELECT ${notices.length === 0 ? sql`1` : sql.csv(notices)}`.pipe(
      Effect.zipRight(notices.length < channels.length ? signalAfter(records, events) : Effect.void),
      Effect.as(inputs.map(() => Exit.void)),
      Effect.catchAllCause((cause) =>
        inputs.length === 1
          ? Effect.succeed([Exit.failCause(cause)])
          : Effect.forEach(inputs, (input) => Effect.map(writeBatch([input]), (exits) => exits[0]!))
      )
    )
  }
  const createBatched = yield* batching(writeBatch, 64)

  const stale = (postId: string) => new StaleWrite({ postId })

  /**
   * Two batches that share posts can still lock them in opposite orders; PostgreSQL then refuses
   * one statement whole, and each of its changes is retried as stale, from a fresh read.
   */
  const unlessDeadlock = (written: Effect.Effect<ReadonlySet<string>, SqlError.SqlError>) =>
    Effect.catchIf(
      written,
      (error) => (error.cause as { readonly code?: unknown } | undefined)?.code === "40P01",
      () => Effect.succeed(new Set<string>())
    )

  /**
   * Updates as one statement, atomic on its own (no transaction around it): each post row is
   * written only at its expected version, and only the changes whose post was written write their
   * deliveries and events. Rows travel as one JSON parameter per table, read through the table's
   * row type, so a batch of any size is one round trip. Posts and deliveries are written in id
   * order, so batches that share rows mostly take their locks in the same order. Wake-ups that
   * can go through the database are part of the statement. Answers the posts written.
   */
  const updateAll = (changes: ReadonlyArray<PostUpdate>) =>
    Effect.gen(function*() {
      const ordered = [...changes].sort((a, b) => a.record.post.id < b.record.post.id ? -1 : 1)
      const posts = ordered.map((change) => postColumns(change.record.post))
      const deliveries = ordered
        .flatMap((change) => change.record.deliveries.map(deliveryColumns))
        .sort((a, b) => a.id < b.id ? -1 : 1)
      const events = ordered.flatMap((change) => change.events.map((event) => ({ ...eventColumns(event), post_id: change.record.post.id })))
      const assign = (names: ReadonlyArray<string>, from: string) => sql.literal(names.map((name) => `${name} = ${from}.${name}`).join(", "))
      const postNames = Object.keys(posts[0]!).filter((name) => name !== "id")
      const deliveryNames = sql.literal(deliveries.length === 0 ? "" : Object.keys(deliveries[0]!).join(", "))
      const channels = channelsOf(ordered.map((change) => change.record), events.length > 0)
      const notices = inStatement(channels)
      const rows = yield* sql<{ readonly id: string }>`
        ${
        sql.csv("WITH", [
          sql`input AS MATERIALIZED (
            SELECT v.expected, p.*
            FROM json_populate_recordset(NULL::posts, ${JSON.stringify(posts)}::json) WITH ORDINALITY p
            JOIN unnest(${ordered.map((change) => change.expectedVersion)}::int[]) WITH ORDINALITY v(expected, n) ON v.n = p.ordinality)`,
          // The ids again as an array, so the rows are found through the primary key: a planner that
          // takes the input for its default hundred rows and the table for a small one otherwise
          // reads the whole table, in every statement (bench/README.md, Dispatch: PostgreSQL's share).
          sql`updated AS (
            UPDATE posts t SET ${assign(postNames, "i")}
            FROM input i WHERE t.id = ANY (${posts.map((post) => post.id)}::uuid[]) AND t.id = i.id AND t.version = i.expected
            RETURNING t.id)`,
          ...(deliveries.length === 0 ? [] : [
            sql`delivery_input AS MATERIALIZED (
              SELECT * FROM json_populate_recordset(NULL::deliveries, ${JSON.stringify(deliveries)}::json)
              WHERE post_id IN (SELECT id FROM updated))`,
            // A plain UPDATE, not INSERT … ON CONFLICT DO UPDATE, which locks each row it finds
            // (a WAL record of its own) before updating it; and only the rows that changed.
            sql`kept AS (
              UPDATE deliveries d SET
                position = i.position, status = i.status, due_at = i.due_at, url = i.url,
                platform_post_id = i.platform_post_id, follow_up_post_ids = i.follow_up_post_ids, error = i.error, note = i.note, attempts = i.attempts,
                takedown = i.takedown, updated_at = i.updated_at,
                lease_owner = CASE WHEN i.status IN ('success', 'failed', 'taken_down') THEN NULL ELSE d.lease_owner END,
                lease_expires_at = CASE WHEN i.status IN ('success', 'failed', 'taken_down') THEN NULL ELSE d.lease_expires_at END
              FROM delivery_input i
              WHERE d.id = i.id
                AND (d.updated_at, d.status, d.due_at, d.attempts, d.error, d.note, d.url, d.platform_post_id, d.follow_up_post_ids, d.takedown, d.position)
                  IS DISTINCT FROM (i.updated_at, i.status, i.due_at, i.attempts, i.error, i.note, i.url, i.platform_post_id, i.follow_up_post_ids, i.takedown, i.position))`,
            sql`added AS (
              INSERT INTO deliveries (${deliveryNames})
              SELECT ${deliveryNames} FROM delivery_input i
              WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = i.id)
              ORDER BY id)`
          ]),
          sql`dropped AS (
            DELETE FROM deliveries WHERE post_id IN (SELECT id FROM updated) AND id <> ALL (${deliveries.map((row) => row.id)}::uuid[]))`,
          ...(events.length === 0 ? [] : eventWritesFrom(sql, sql`(id, project_id, kind, data, created_at)
            SELECT e.id, e.project_id, e.kind, e.data, e.created_at
            FROM json_array_elements(${JSON.stringify(events)}::json) x, json_populate_record(NULL::outbox_events, x) e
            WHERE (x->>'post_id')::uuid IN (SELECT id FROM updated)`))
        ])
      }
        SELECT ${sql.csv([sql`id`, ...notices])} FROM updated`
      const written = new Set(rows.map((row) => row.id))
      if (written.size > 0 && notices.length < channels.length) {
        yield* signalAfter(ordered.filter((change) => written.has(change.record.post.id)).map((change) => change.record), events)
      }
      return written as ReadonlySet<string>
    })

  /** A change of more than the post's own rows, in the caller's transaction. */
  const applyChange = (change: Exclude<PostChange, PostUpdate>) =>
    Effect.gen(function*() {
      switch (change._tag) {
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
    create: traced("PostStore.create")(function*(input: NewPost) {
      if (input.idempotency === null && input.dailyCap === null) {
        yield* orDieInfra(Effect.flatten(createBatched(input)))
        return CreateOutcome.Created({ record: input.record })
      }
      const outcome = yield* orDieInfra(sql.withTransaction(writeNew(input)))
      if (outcome._tag === "Created") yield* signalAfter([outcome.record], input.events)
      return outcome
    }),
    findIdempotent: traced("PostStore.findIdempotent")(function*(projectId, key) {
      const [earlier] = yield* orDieInfra(sql<{ readonly fingerprint: string; readonly post_id: string }>`
        SELECT fingerprint, post_id FROM idempotency_keys WHERE project_id = ${projectId} AND key = ${key}`)
      if (earlier === undefined) return Option.none()
      const record = yield* orDieInfra(findWhere(sql.and([sql`id = ${earlier.post_id}`])))
      return Option.map(record, (record) => ({ record, fingerprint: earlier.fingerprint }))
    }),
    find: traced("PostStore.find")((projectId, id) =>
      orDieInfra(findWhere(sql.and([sql`project_id = ${projectId}`, sql`id = ${id}`])))
    ),
    findByDelivery: traced("PostStore.findByDelivery")((projectId, id) =>
      orDieInfra(findWhere(sql.and([
        sql`project_id = ${projectId}`,
        sql`id = (SELECT post_id FROM deliveries WHERE id = ${id} AND project_id = ${projectId})`
      ])))
    ),
    list: traced("PostStore.list")((projectId, query) =>
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
    findMany: traced("PostStore.findMany")((keys) =>
      orDieInfra(withDeliveries(sql`
        SELECT * FROM posts
        WHERE (id, project_id) IN (
          SELECT * FROM unnest(${keys.map((key) => key.postId)}::uuid[], ${keys.map((key) => key.projectId)}::uuid[]))`))
    ),
    commit: traced("PostStore.commit")(function*(change: PostChange) {
      switch (change._tag) {
        case "Update": {
          const written = yield* orDieInfra(unlessDeadlock(updateAll([change])))
          if (!written.has(change.record.post.id)) return yield* stale(change.record.post.id)
          return
        }
        case "Supersede":
          yield* orDieInfra(sql.withTransaction(applyChange(change)))
          return yield* signalAfter([change.successor.record], change.successor.events)
        case "Remove":
          return yield* orDieInfra(sql.withTransaction(applyChange(change)))
      }
    }),
    commitAll: traced("PostStore.commitAll")(function*(changes: ReadonlyArray<PostUpdate>) {
      if (changes.length === 0) return []
      const posts = new Set(changes.map((change) => change.record.post.id))
      if (posts.size < changes.length) return yield* Effect.dieMessage("commitAll got two changes of one post")
      const written = yield* orDieInfra(unlessDeadlock(updateAll(changes)))
      return changes.flatMap((change) => written.has(change.record.post.id) ? [] : [stale(change.record.post.id)])
    }),
    createdSince: traced("PostStore.createdSince")((keyId, since) =>
      orDieInfra(
        sql<{ readonly count: number }>`
          SELECT count(*)::int AS count FROM post_creations
          WHERE key_id = ${keyId} AND created_at >= ${DateTime.formatIso(since)}`
      ).pipe(Effect.map((rows) => rows[0]?.count ?? 0))
    )
  })
})

export const PostgresPostStore = Layer.scoped(PostStore, make)
