import { SqlClient } from "@effect/sql"
import { AccountAdmin, AccountNotFound, AccountStore, Credentials, inSpan, SocialAccount, traced } from "@herald/core"
import { Array as Arr, Duration, Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { ChangeNotices } from "./ChangeNotices.js"
import { CredentialsCipher } from "./CredentialsCipher.js"
import { orDieInfra } from "./Infra.js"
import { accountFromRow, type AccountRow } from "./Rows.js"

const decodeCredentials = Schema.decodeUnknown(Schema.parseJson(Credentials))

/**
 * How long a renewal lease holds off other processes: longer than a token endpoint's answer takes
 * (the platform clients' deadlines are shorter), short enough that a holder that died frees it soon.
 */
const leaseSeconds = 120
/** How often a renewer in another process looks whether the lease is free. */
const leasePoll = Duration.millis(100)

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

  const semaphores = new Map<string, Effect.Semaphore>()
  const renewals = (id: string) =>
    Effect.sync(() => {
      const known = semaphores.get(id)
      if (known !== undefined) return known
      const made = Effect.unsafeMakeSemaphore(1)
      semaphores.set(id, made)
      return made
    })

  /**
   * The account's renewal lease, taken in one statement (with the credentials as they are once it
   * is taken), or why not: the account is gone, or another process holds it.
   */
  const takeLease = (id: string, holder: string) =>
    orDieInfra(Effect.gen(function*() {
      const taken = yield* sql<{ readonly credentials: string }>`
        UPDATE social_accounts SET renewal_holder = ${holder}, renewal_until = now() + ${leaseSeconds} * interval '1 second'
        WHERE id = ${id} AND (renewal_until IS NULL OR renewal_until <= now())
        RETURNING credentials`
      if (taken.length > 0) return { _tag: "taken", sealed: taken[0]!.credentials } as const
      const exists = yield* sql`SELECT 1 FROM social_accounts WHERE id = ${id}`
      return exists.length === 0 ? { _tag: "missing" } as const : { _tag: "held" } as const
    }))

  const releaseLease = (id: string, holder: string) =>
    orDieInfra(sql`UPDATE social_accounts SET renewal_holder = NULL, renewal_until = NULL WHERE id = ${id} AND renewal_holder = ${holder}`)

  /** One try: renews under the lease when it is free; "held" when another process holds it. */
  const renewOnce = <E>(id: string, renew: (current: Credentials) => Effect.Effect<Option.Option<Credentials>, E>) =>
    Effect.suspend(() => {
      const holder = randomUUID()
      return Effect.acquireUseRelease(
        takeLease(id, holder),
        (lease) =>
          Effect.gen(function*() {
            if (lease._tag !== "taken") return lease._tag === "held" ? "held" as const : Option.none<Credentials>()
            const current = yield* readCredentials(id, lease.sealed)
            const renewed = yield* renew(current)
            if (Option.isNone(renewed)) return Option.some(current)
            // Stored even if the lease ran out meanwhile: it is the newest grant the platform gave
            // (a refresh may have rotated the refresh token the stored one held).
            yield* orDieInfra(sql`UPDATE social_accounts SET credentials = ${cipher.seal(JSON.stringify(renewed.value), id)} WHERE id = ${id}`)
            return renewed
          }),
        (lease) => lease._tag === "taken" ? releaseLease(id, holder) : Effect.void
      )
    })

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
      // One renewer per account in this process waits on the semaphore (not on the database);
      // the lease keeps out renewers in other processes, which poll until it is free.
      Effect.flatMap(renewals(id), (semaphore) =>
        semaphore.withPermits(1)(Effect.gen(function*() {
          while (true) {
            const outcome = yield* renewOnce(id, renew)
            if (outcome !== "held") return outcome
            yield* Effect.sleep(leasePoll)
          }
        }))).pipe(inSpan("AccountAdmin.renewCredentials"))
  })

  return Layer.succeed(AccountStore, store).pipe(Layer.merge(Layer.succeed(AccountAdmin, admin)))
})

/** AccountStore and AccountAdmin over social_accounts; credentials sealed with AES-256-GCM. */
export const PostgresAccounts = Layer.unwrapEffect(make)
