import { SqlClient } from "@effect/sql"
import { AccountAdmin, AccountNotFound, AccountStore, Credentials, inSpan, SocialAccount, traced } from "@herald/core"
import { Array as Arr, Effect, Layer, Option, Schema } from "effect"
import { ChangeNotices } from "./ChangeNotices.js"
import { CredentialsCipher } from "./CredentialsCipher.js"
import { orDieInfra } from "./Infra.js"
import { accountFromRow, type AccountRow } from "./Rows.js"

const decodeCredentials = Schema.decodeUnknown(Schema.parseJson(Credentials))

/** The account's report as its jsonb column (null: the platform reports nothing). */
const reportColumn = (account: SocialAccount) => account.report === undefined ? null : JSON.stringify(account.report)

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cipher = yield* CredentialsCipher
  const notices = yield* ChangeNotices
  // Every post resolves its targets against these; each account write raises a notice.
  const accounts = notices.cache<ReadonlyArray<SocialAccount>>("accounts", 10_000)

  const store = AccountStore.of({
    // Never SELECT *: the credentials column stays out of every read but credentialsFor.
    list: (projectId) =>
      accounts.through(
        projectId,
        "",
        () =>
          orDieInfra(
          sql<AccountRow>`
            SELECT id, project_id, platform, username, route, status, report FROM social_accounts
            WHERE project_id = ${projectId} ORDER BY created_at, id`.pipe(Effect.flatMap(Effect.forEach(accountFromRow)))
        ).pipe(inSpan("AccountStore.list"))
      )
  })

  const readCredentials = (id: string, sealed: string) => orDieInfra(decodeCredentials(cipher.open(sealed, id)))

  const admin = AccountAdmin.of({
    connect: traced("AccountAdmin.connect")((account, credentials) => {
      const sealed = cipher.seal(JSON.stringify(credentials), account.id)
      return orDieInfra(sql`
        INSERT INTO social_accounts (id, project_id, platform, username, route, status, credentials)
        VALUES (${account.id}, ${account.projectId}, ${account.platform}, ${account.username}, ${account.route},
          ${account.status}, ${sealed})
        ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username, route = EXCLUDED.route,
          status = EXCLUDED.status, credentials = EXCLUDED.credentials
        WHERE social_accounts.project_id = EXCLUDED.project_id`).pipe(
        Effect.tap(() => notices.changed("accounts", account.projectId))
      )
    }),
    setStatus: traced("AccountAdmin.setStatus")(function*(id, status) {
      const rows = yield* orDieInfra(sql<{ readonly project_id: string }>`
        UPDATE social_accounts SET status = ${status} WHERE id = ${id} RETURNING project_id`)
      if (rows.length === 0) return yield* new AccountNotFound({ accountId: id })
      notices.changed("accounts", rows[0]!.project_id)
    }),
    credentialsFor: traced("AccountAdmin.credentialsFor")(function*(id) {
      const rows = yield* orDieInfra(
        sql<{ readonly credentials: string }>`SELECT credentials FROM social_accounts WHERE id = ${id}`
      )
      return yield* Option.match(Arr.head(rows), {
        onNone: () => Effect.succeedNone,
        onSome: (row) => Effect.asSome(readCredentials(id, row.credentials))
      })
    }),
    connectPlatformAccount: traced("AccountAdmin.connectPlatformAccount")(function*(account, credentials, platformAccountId) {
      // Credentials are sealed to their row's id, so the row (new or existing) is settled first.
      const upsert = Effect.gen(function*() {
        const existing = yield* sql<{ readonly id: string }>`
          SELECT id FROM social_accounts
          WHERE project_id = ${account.projectId} AND platform = ${account.platform} AND route = ${account.route}
            AND platform_account_id = ${platformAccountId}
          FOR UPDATE`
        if (existing.length > 0) {
          const id = existing[0]!.id
          yield* sql`
            UPDATE social_accounts SET username = ${account.username}, status = ${account.status},
              credentials = ${cipher.seal(JSON.stringify(credentials), id)}, report = ${reportColumn(account)}::jsonb
            WHERE id = ${id}`
          return id
        }
        const inserted = yield* sql<{ readonly id: string }>`
          INSERT INTO social_accounts (id, project_id, platform, username, route, status, credentials, platform_account_id, report)
          VALUES (${account.id}, ${account.projectId}, ${account.platform}, ${account.username}, ${account.route},
            ${account.status}, ${cipher.seal(JSON.stringify(credentials), account.id)}, ${platformAccountId}, ${reportColumn(account)}::jsonb)
          ON CONFLICT (project_id, platform, route, platform_account_id) WHERE platform_account_id IS NOT NULL DO NOTHING
          RETURNING id`
        return inserted[0]?.id
      })
      // A concurrent first connect of the same platform account may win the insert: then update its row.
      const id = (yield* orDieInfra(sql.withTransaction(upsert))) ?? (yield* orDieInfra(sql.withTransaction(upsert)))
      if (id === undefined) return yield* Effect.dieMessage(`the platform account ${platformAccountId} could not be connected`)
      notices.changed("accounts", account.projectId)
      return new SocialAccount({ ...account, id: id as SocialAccount["id"] })
    }),
    renewCredentials: (id, renew) =>
      orDieInfra(sql.withTransaction(Effect.gen(function*() {
        // The row lock holds every other renewer (in any process) until this one commits, and
        // they then read what it stored.
        const rows = yield* sql<{ readonly credentials: string }>`
          SELECT credentials FROM social_accounts WHERE id = ${id} FOR UPDATE`
        if (rows.length === 0) return Option.none()
        const current = yield* readCredentials(id, rows[0]!.credentials)
        const renewed = yield* renew(current)
        if (Option.isNone(renewed)) return Option.some(current)
        yield* sql`UPDATE social_accounts SET credentials = ${cipher.seal(JSON.stringify(renewed.value), id)} WHERE id = ${id}`
        return renewed
      }))).pipe(inSpan("AccountAdmin.renewCredentials"))
  })

  return Layer.succeed(AccountStore, store).pipe(Layer.merge(Layer.succeed(AccountAdmin, admin)))
})

/** AccountStore and AccountAdmin over social_accounts; credentials sealed with AES-256-GCM. */
export const PostgresAccounts = Layer.unwrapEffect(make)
