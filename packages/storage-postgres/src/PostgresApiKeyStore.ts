import { SqlClient } from "@effect/sql"
import {
  ActorKind,
  type ApiKeyId,
  type ApiKeyMatch,
  ApiKeyNotFound,
  ApiKeyStore,
  ApiKeySummary,
  inSpan,
  Principal,
  type ProjectId,
  Scope,
  traced
} from "@herald/core"
import { Array as Arr, DateTime, Effect, Either, Layer, type Option, type ParseResult, Schema } from "effect"
import { ChangeNotices } from "./ChangeNotices.js"
import { orDieInfra } from "./Infra.js"

interface KeyRow {
  readonly id: ApiKeyId
  readonly project_id: ProjectId
  readonly name: string
  readonly prefix: string
  readonly kind: string
  readonly scopes: ReadonlyArray<string>
  readonly rate_limit_per_minute: number
  readonly daily_post_cap: number | null
  readonly revoked_at: Date | null
  readonly last_used_at: Date | null
  readonly created_at: Date
}

const summaryFromRow = (row: KeyRow) =>
  Schema.decodeUnknown(ApiKeySummary)({
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    prefix: row.prefix,
    kind: row.kind,
    scopes: row.scopes,
    rateLimitPerMinute: row.rate_limit_per_minute,
    dailyPostCap: row.daily_post_cap,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString()
  })

/** The columns the database does not constrain; ids and the cap are typed (and checked) by theirs. */
const decodeMatchColumns = Schema.decodeUnknownEither(Schema.Struct({ kind: ActorKind, scopes: Schema.Array(Scope) }))

const matchFromRow = (row: KeyRow): Either.Either<ApiKeyMatch, ParseResult.ParseError> =>
  Either.map(decodeMatchColumns(row), ({ kind, scopes }) => ({
    principal: new Principal({
      projectId: row.project_id,
      keyId: row.id,
      keyName: row.name,
      kind,
      scopes,
      dailyPostCap: row.daily_post_cap,
      surface: "rest"
    }, true),
    revoked: row.revoked_at !== null,
    rateLimitPerMinute: row.rate_limit_per_minute
  }))

/**
 * last_used_at is worth a minute's precision, not a write (and a WAL flush) on every request: a
 * process writes it for a key at most once a minute. The memo only ever skips a write; it is
 * cleared when it reaches touchMemoLimit keys, to stay bounded.
 */
const touchInterval = 60_000
const touchMemoLimit = 10_000

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const notices = yield* ChangeNotices
  // Every authenticated request looks its key up; keys change rarely (a revoke raises a notice).
  const matches = notices.cache<Option.Option<ApiKeyMatch>>("keys", 10_000)
  const lastWritten = new Map<ApiKeyId, number>()
  // Never key_hash: it stays in the table.
  const columns = sql`id, project_id, name, prefix, kind, scopes, rate_limit_per_minute, daily_post_cap,
    revoked_at, last_used_at, created_at`

  const writeTouch = traced("ApiKeyStore.touch")((id: ApiKeyId, at: DateTime.Utc, millis: number) =>
    orDieInfra(sql`
      UPDATE api_keys SET last_used_at = GREATEST(last_used_at, ${DateTime.formatIso(at)}::timestamptz)
      WHERE id = ${id}`).pipe(
        Effect.tap(() => {
          if (lastWritten.size >= touchMemoLimit) lastWritten.clear()
          lastWritten.set(id, millis)
        })
      )
  )

  return ApiKeyStore.of({
    create: traced("ApiKeyStore.create")((key) =>
      orDieInfra(
        sql<KeyRow>`INSERT INTO api_keys ${
          sql.insert({
            id: key.id,
            project_id: key.projectId,
            name: key.name,
            key_hash: key.hash,
            prefix: key.prefix,
            kind: key.kind,
            scopes: key.scopes,
            rate_limit_per_minute: key.rateLimitPerMinute,
            daily_post_cap: key.dailyPostCap,
            created_at: DateTime.formatIso(key.createdAt)
          })
        } RETURNING ${columns}`.pipe(Effect.flatMap((rows) => summaryFromRow(rows[0]!)))
      ).pipe(Effect.tap(() => notices.changed("keys", key.projectId)))
    ),
    findByHash: (hash) =>
      matches.through(
        hash,
        "",
        () =>
          orDieInfra(
          sql<KeyRow>`SELECT ${columns} FROM api_keys WHERE key_hash = ${hash}`.pipe(
            Effect.flatMap((rows) => Effect.forEach(rows, matchFromRow)),
            Effect.map(Arr.head)
          )
        ).pipe(inSpan("ApiKeyStore.findByHash"))
      ),
    list: traced("ApiKeyStore.list")((projectId) =>
      orDieInfra(
        sql<KeyRow>`SELECT ${columns} FROM api_keys WHERE project_id = ${projectId} ORDER BY created_at, id`.pipe(
          Effect.flatMap(Effect.forEach(summaryFromRow))
        )
      )
    ),
    revoke: traced("ApiKeyStore.revoke")(function*(projectId, id, at) {
      const rows = yield* orDieInfra(sql`
        UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${DateTime.formatIso(at)})
        WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)
      if (rows.length === 0) return yield* new ApiKeyNotFound({ keyId: id })
      notices.changed("keys", projectId)
    }),
    updateLimits: traced("ApiKeyStore.updateLimits")(function*(projectId, id, limits) {
      const rows = yield* orDieInfra(sql<KeyRow>`
        UPDATE api_keys SET
          rate_limit_per_minute = COALESCE(${limits.rateLimitPerMinute ?? null}::int, rate_limit_per_minute),
          daily_post_cap = CASE WHEN ${limits.dailyPostCap !== undefined} THEN ${limits.dailyPostCap ?? null}::int ELSE daily_post_cap END
        WHERE project_id = ${projectId} AND id = ${id} RETURNING ${columns}`)
      if (rows.length === 0) return yield* new ApiKeyNotFound({ keyId: id })
      notices.changed("keys", projectId)
      return yield* orDieInfra(summaryFromRow(rows[0]!))
    }),
    // Called on every request: a touch the memo skips is Effect.void, without even a span.
    touch: (id, at) => {
      const millis = DateTime.toEpochMillis(at)
      const last = lastWritten.get(id)
      return last !== undefined && millis >= last && millis - last < touchInterval ? Effect.void : writeTouch(id, at, millis)
    }
  })
})

export const PostgresApiKeyStore = Layer.effect(ApiKeyStore, make)
