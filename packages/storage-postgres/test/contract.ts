import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { AccountAdmin, AccountStore, ApprovalChannel, ApprovalChannelId, ApprovalChannels, ProjectAdmin, WebhookEndpoints } from "@herald/core"
import { type Storage as ContractStorage, storageCases, StoredRows } from "@herald/core/storage-contract"
import { DateTime, Effect, Exit, Layer, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { newAccount, newEndpoint, newProject } from "./fixtures.js"

export type Storage = SqlClient.SqlClient | Exclude<ContractStorage, StoredRows>

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
