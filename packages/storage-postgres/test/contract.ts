import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { AccountAdmin, AccountStore, ApprovalChannel, type Credentials, ApprovalChannelId, ApprovalChannels, PostStore, ProjectAdmin, PublishCheckpoints, WebhookEndpoints } from "@herald/core"
import { type Storage as ContractStorage, storageCases, StoredRows } from "@herald/core/storage-contract"
import { DateTime, Deferred, Effect, Exit, Fiber, Layer, Option, Redacted, TestServices } from "effect"
import { randomUUID } from "node:crypto"
import { ChangeNotices } from "../src/ChangeNotices.js"
import { CredentialsCipher } from "../src/CredentialsCipher.js"
import { PostgresAccounts } from "../src/PostgresAccounts.js"
import sealCheckpoints from "../src/migrations/0050_sealed_checkpoints.js"
import { credentialsKey, newAccount, newEndpoint, newPost, newProject } from "./fixtures.js"

export type Storage = SqlClient.SqlClient | ChangeNotices | Exclude<ContractStorage, StoredRows>

/** The stored rows, read with SQL. */
const storedRows = Layer.effect(
  StoredRows,
  Effect.map(SqlClient.SqlClient, (sql) =>
    StoredRows.of({
      rows: (table, column, value) => Effect.orDie(sql<Record<string, unknown>>`SELECT * FROM ${sql(table)} WHERE ${sql(column)} = ${value}`)
    }))
)

/** The storage contract on a PostgreSQL database (PGlite or a server), and what only a database holds. */
export const storageContract = (name: string, storage: Layer.Layer<Storage, unknown>) =>
  layer(Layer.provideMerge(storedRows, storage), { timeout: 90_000 })(name, (it) => {
    storageCases(it)

    describe("credential renewal", () => {
      /** A renewer standing for a slow token endpoint: it answers once `answer` is done. */
      const slowRefresh = Effect.gen(function*() {
        const called = yield* Deferred.make<void>()
        const answer = yield* Deferred.make<void>()
        let refreshes = 0
        const renew = (current: Credentials) =>
          current.access_token !== "old"
            ? Effect.succeedNone
            : Effect.gen(function*() {
              refreshes += 1
              yield* Deferred.succeed(called, undefined)
              yield* Deferred.await(answer)
              return Option.some({ access_token: `new${refreshes}` })
            })
        return { called, answer, renew, refreshes: () => refreshes }
      })

      const connectedAccount = Effect.gen(function*() {
        const project = newProject()
        yield* (yield* ProjectAdmin).create(project)
        const account = newAccount(project.id)
        yield* (yield* AccountAdmin).connect(account, { access_token: "old" })
        return { project, account }
      })

      it.effect("a slow token endpoint holds no database connection: other queries run meanwhile, and concurrent renewers refresh once", () =>
        Effect.gen(function*() {
          const admin = yield* AccountAdmin
          const { account, project } = yield* connectedAccount
          const refresh = yield* slowRefresh
          const renewers = yield* Effect.forkAll(Array.from({ length: 5 }, () => admin.renewCredentials(account.id, refresh.renew)))
          yield* Deferred.await(refresh.called)
          // While the token endpoint has not answered, reads and writes go through (on the
          // embedded database a transaction held across the call would block them all).
          const meanwhile = yield* Effect.all([
            admin.credentialsFor(account.id),
            Effect.flatMap(AccountStore, (accounts) => accounts.list(project.id)),
            Effect.flatMap(ProjectAdmin, (projects) => projects.create(newProject()))
          ]).pipe(Effect.timeout("5 seconds"), Effect.exit)
          yield* Deferred.succeed(refresh.answer, undefined)
          const results = yield* Fiber.join(renewers)
          expect(Exit.isSuccess(meanwhile)).toBe(true)
          expect(Exit.isSuccess(meanwhile) && meanwhile.value[0]).toEqual(Option.some({ access_token: "old" }))
          expect(refresh.refreshes()).toBe(1)
          expect(results.map(Option.getOrThrow)).toEqual(Array.from({ length: 5 }, () => ({ access_token: "new1" })))
          expect(yield* admin.credentialsFor(account.id)).toEqual(Option.some({ access_token: "new1" }))
        }).pipe(TestServices.provideLive))

      it.effect("renewers in two processes refresh once: the second waits on the lease, then sees what the first stored", () =>
        Effect.gen(function*() {
          // A second AccountAdmin over the same database stands for another process: it shares no
          // in-process state with the first.
          const other = yield* Effect.provide(
            AccountAdmin,
            PostgresAccounts.pipe(Layer.provide(CredentialsCipher.layer(credentialsKey)), Layer.provide(Layer.succeedContext(yield* Effect.context<SqlClient.SqlClient | ChangeNotices>())))
          )
          const admin = yield* AccountAdmin
          const { account } = yield* connectedAccount
          const refresh = yield* slowRefresh
          const first = yield* Effect.fork(admin.renewCredentials(account.id, refresh.renew))
          yield* Deferred.await(refresh.called)
          const second = yield* Effect.fork(other.renewCredentials(account.id, refresh.renew))
          yield* Effect.sleep("300 millis")
          yield* Deferred.succeed(refresh.answer, undefined)
          expect(yield* Fiber.join(first)).toEqual(Option.some({ access_token: "new1" }))
          expect(yield* Fiber.join(second)).toEqual(Option.some({ access_token: "new1" }))
          expect(refresh.refreshes()).toBe(1)
        }).pipe(TestServices.provideLive))

      it.effect("a lease left by a process that died frees at its time; a failed renewal releases its lease and stores nothing", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const admin = yield* AccountAdmin
          const { account } = yield* connectedAccount
          yield* Effect.orDie(sql`UPDATE social_accounts SET renewal_holder = ${randomUUID()}, renewal_until = now() - interval '1 second' WHERE id = ${account.id}`)
          expect(yield* admin.renewCredentials(account.id, () => Effect.succeed(Option.some({ access_token: "renewed" })))).toEqual(
            Option.some({ access_token: "renewed" })
          )
          expect(Exit.isFailure(yield* Effect.exit(admin.renewCredentials(account.id, () => Effect.fail("refused"))))).toBe(true)
          const [lease] = yield* Effect.orDie(sql<{ readonly renewal_holder: string | null }>`SELECT renewal_holder FROM social_accounts WHERE id = ${account.id}`)
          expect(lease!.renewal_holder).toBeNull()
          expect(yield* admin.credentialsFor(account.id)).toEqual(Option.some({ access_token: "renewed" }))
          expect(yield* admin.renewCredentials(newAccount(account.projectId, "gone").id, () => Effect.succeed(Option.some({ access_token: "x" })))).toEqual(Option.none())
        }).pipe(TestServices.provideLive))
    })

    describe("at rest", () => {
      it.effect("credentials are sealed in the table and only credentialsFor returns them", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const admin = yield* AccountAdmin
          const accounts = yield* AccountStore
          const projects = yield* ProjectAdmin
          const project = newProject()
          yield* projects.create(project)
          const account = newAccount(project.id)
          const secret = "oauth-token-7f3a9c-SUPER-SECRET"
          yield* admin.connect(account, { access_token: secret, refresh_token: "refresh-abc" })
          const [raw] = yield* Effect.orDie(sql<{ readonly row: string }>`SELECT row_to_json(a)::text AS row FROM social_accounts a WHERE id = ${account.id}`)
          expect(raw!.row).not.toContain("SUPER-SECRET")
          expect(raw!.row).not.toContain("refresh-abc")
          expect(raw!.row).not.toContain("access_token")
          expect(raw!.row).toMatch(/"credentials":"v1\./)
          expect(yield* admin.credentialsFor(account.id)).toEqual(Option.some({ access_token: secret, refresh_token: "refresh-abc" }))
          expect(JSON.stringify(yield* accounts.list(project.id))).not.toContain("SUPER-SECRET")
          yield* admin.setStatus(account.id, "needs_reconnect")
          expect((yield* accounts.list(project.id)).map((a) => a.status)).toEqual(["needs_reconnect"])
          // A sealed value moved onto another row does not open.
          const other = newAccount(project.id, "other")
          yield* admin.connect(other, { access_token: "x" })
          yield* Effect.orDie(sql`UPDATE social_accounts SET credentials = (SELECT credentials FROM social_accounts WHERE id = ${account.id}) WHERE id = ${other.id}`)
          expect(Exit.isFailure(yield* Effect.exit(admin.credentialsFor(other.id)))).toBe(true)
        }))

      it.effect("an approval channel's address (a chat URL is a credential) is sealed in the table", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const channels = yield* ApprovalChannels
          const project = newProject()
          const channel = new ApprovalChannel({
            id: ApprovalChannelId.make(randomUUID()),
            projectId: project.id,
            kind: "chat",
            recipient: "#approvals",
            createdAt: DateTime.unsafeMake("2030-01-15T10:00:00.000Z")
          })
          yield* channels.add(channel, Redacted.make("https://hooks.example.com/services/T0/B0/SUPER-SECRET"))
          const [raw] = yield* Effect.orDie(sql<{ readonly row: string }>`SELECT row_to_json(c)::text AS row FROM approval_channels c WHERE id = ${channel.id}`)
          expect(raw!.row).not.toContain("SUPER-SECRET")
          expect(raw!.row).toMatch(/"address":"v1\./)
          expect(JSON.stringify(yield* channels.list(project.id))).not.toContain("SUPER-SECRET")
        }))

      it.effect("a publish checkpoint (an upload session URI is a bearer capability) is sealed in the table, bound to its delivery", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const checkpoints = yield* PublishCheckpoints
          const input = newPost({ projectId: newProject().id })
          yield* (yield* PostStore).create(input)
          const [one, two] = input.record.deliveries
          const session = JSON.stringify({ phase: "session", session: "https://www.googleapis.com/upload/youtube/v3/videos?upload_id=SUPER-SECRET", total: 9 })
          yield* checkpoints.put(one!.id, session)
          const [raw] = yield* Effect.orDie(sql<{ readonly row: string }>`SELECT row_to_json(c)::text AS row FROM publish_checkpoints c WHERE delivery_id = ${one!.id}`)
          expect(raw!.row).not.toContain("SUPER-SECRET")
          expect(raw!.row).not.toContain("googleapis")
          expect(raw!.row).toMatch(/"value":"v1\./)
          expect(yield* checkpoints.get(one!.id)).toEqual(Option.some(session))
          // A sealed value moved onto another delivery's row does not open.
          yield* checkpoints.put(two!.id, "container-2")
          yield* Effect.orDie(sql`UPDATE publish_checkpoints SET value = (SELECT value FROM publish_checkpoints WHERE delivery_id = ${one!.id}) WHERE delivery_id = ${two!.id}`)
          expect(Exit.isFailure(yield* Effect.exit(checkpoints.get(two!.id)))).toBe(true)
        }))

      it.effect("migration 0050 seals the checkpoints recorded in the clear before it, and they read back as they were", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const checkpoints = yield* PublishCheckpoints
          const input = newPost({ projectId: newProject().id })
          yield* (yield* PostStore).create(input)
          const [one, two] = input.record.deliveries
          const session = JSON.stringify({ phase: "session", session: "https://upload.example/session?upload_id=OLD-SECRET", total: 9 })
          // Other deliveries' rows (other test files share the database) are sealed already; the
          // migration runs again over all rows here, so they are set aside and put back after.
          const others = yield* Effect.orDie(sql<{ readonly delivery_id: string; readonly value: string }>`
            DELETE FROM publish_checkpoints WHERE delivery_id NOT IN (${one!.id}, ${two!.id}) RETURNING delivery_id, value`)
          yield* Effect.orDie(sql`INSERT INTO publish_checkpoints (delivery_id, value) VALUES (${one!.id}, ${session}), (${two!.id}, ${"container-7"})`)
          const cipher = yield* Effect.provide(CredentialsCipher, CredentialsCipher.layer(credentialsKey))
          yield* Effect.orDie(sealCheckpoints(cipher))
          yield* Effect.forEach(others, (row) => Effect.orDie(sql`INSERT INTO publish_checkpoints ${sql.insert(row)}`), { discard: true })
          const rows = yield* Effect.orDie(sql<{ readonly value: string }>`SELECT value FROM publish_checkpoints WHERE delivery_id IN (${one!.id}, ${two!.id})`)
          expect(rows.map((row) => row.value.startsWith("v1."))).toEqual([true, true])
          expect(JSON.stringify(rows)).not.toContain("OLD-SECRET")
          expect(yield* checkpoints.get(one!.id)).toEqual(Option.some(session))
          expect(yield* checkpoints.get(two!.id)).toEqual(Option.some("container-7"))
        }))

      it.effect("a webhook endpoint's current and rotated-out secrets are both sealed in the table", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const projects = yield* ProjectAdmin
          const endpoints = yield* WebhookEndpoints
          const project = newProject()
          yield* projects.create(project)
          const endpoint = newEndpoint(project.id)
          yield* endpoints.create(endpoint, Redacted.make("whsec_OLD-SECRET"))
          yield* endpoints.rotateSecret(project.id, endpoint.id, Redacted.make("whsec_NEW-SECRET"), DateTime.unsafeMake("2030-01-16T10:00:00.000Z"))
          const [raw] = yield* Effect.orDie(sql<{ readonly row: string }>`SELECT row_to_json(w)::text AS row FROM webhook_endpoints w WHERE id = ${endpoint.id}`)
          expect(raw!.row).not.toContain("SECRET")
          expect(raw!.row).toMatch(/"secret":"v1\./)
          expect(raw!.row).toMatch(/"previous_secret":"v1\./)
        }))
    })
  })
