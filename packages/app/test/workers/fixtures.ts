import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import {
  AccountAdmin,
  AccountId,
  ApiKeyId,
  type ApprovalMode,
  BuiltinClassifier,
  type GuardrailSettings,
  IdGenerator,
  noGuardrails,
  type Platform,
  PostId,
  PostStore,
  Principal,
  Project,
  ProjectAdmin,
  ProjectId,
  SocialAccount
} from "@herald/core"
import { plainApprovalLinks } from "@herald/core/memory"
import { Simulator, type SimulatorServerOptions } from "@herald/publishers"
import { StorageLive } from "@herald/storage-postgres"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { defaultPublishingDispatcherOptions, type PublishingDispatcherOptions } from "../../src/workers/index.js"

export const credentialsKey = Redacted.make(randomBytes(32).toString("base64"))

export const randomIds = Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))

/** The embedded store on a fresh data directory. */
export const pglite = () =>
  StorageLive.layer({
    databaseUrl: Option.none(),
    dataDir: embeddedDataDir("herald-workers-"),
    credentialsKey
  })

/** The storage in a schema of its own on the PostgreSQL server `url` names, dropped with the layer. */
export const postgresOnThrowawaySchema = (url: string) => {
  const schema = `herald_workers_${randomBytes(6).toString("hex")}`
  const scoped = new URL(url)
  scoped.searchParams.set("options", `-c search_path=${schema}`)
  const schemaLife = Layer.scopedDiscard(
    Effect.acquireRelease(
      Effect.orDie(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`)),
      () => Effect.orDie(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`))
    )
  ).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
  return StorageLive.layer({ databaseUrl: Option.some(Redacted.make(scoped.toString())), dataDir: "unused", credentialsKey }).pipe(
    Layer.provide(schemaLife)
  )
}

/** Storage, an in-process simulator with its publishers, ids, classifiers and approval links. */
export const world = (simulator: SimulatorServerOptions, storage = pglite()) =>
  Layer.mergeAll(
    storage,
    Simulator.inProcess(simulator),
    randomIds,
    BuiltinClassifier,
    plainApprovalLinks
  )

/** Fast settings for tests: short waits, the same logic. */
export const testOptions = (overrides: Partial<PublishingDispatcherOptions> = {}): PublishingDispatcherOptions => ({
  ...defaultPublishingDispatcherOptions(),
  concurrency: 8,
  pollInterval: Duration.millis(100),
  ...overrides
})

export interface Seeded {
  readonly project: Project
  readonly accounts: ReadonlyArray<SocialAccount>
  readonly human: Principal
  readonly agent: Principal
}

/** A project with connected simulator accounts and a human and an agent key. */
export const seed = (options: {
  readonly accounts: ReadonlyArray<readonly [Platform, string]>
  readonly approval?: ApprovalMode
  readonly guardrails?: Partial<GuardrailSettings>
}) =>
  Effect.gen(function*() {
    const project = new Project({
      id: ProjectId.make(randomUUID()),
      name: "Acme",
      timezone: "UTC",
      approval: options.approval ?? "autopilot",
      signature: "",
      guardrails: { ...noGuardrails, ...options.guardrails },
      plan: "active"
    })
    yield* ProjectAdmin.pipe(Effect.flatMap((admin) => admin.create(project)))
    const accounts = options.accounts.map(([platform, username]) =>
      new SocialAccount({ id: AccountId.make(randomUUID()), projectId: project.id, platform, username, route: "simulator", status: "active" })
    )
    const admin = yield* AccountAdmin
    for (const account of accounts) yield* admin.connect(account, { access_token: `token-${account.username}` })
    const key = (kind: "agent" | "human") =>
      new Principal({
        projectId: project.id,
        keyId: ApiKeyId.make(randomUUID()),
        kind,
        scopes: kind === "agent" ? ["posts:read", "posts:write"] : ["posts:read", "posts:write", "posts:approve"],
        dailyPostCap: null
      })
    return { project, accounts, human: key("human"), agent: key("agent") } satisfies Seeded
  })

export const loadRecord = (projectId: ProjectId, postId: PostId) =>
  PostStore.pipe(
    Effect.flatMap((store) => store.find(projectId, postId)),
    Effect.map(Option.getOrThrow)
  )

/** The outbox events of a project, oldest first. */
export const eventsOf = (projectId: ProjectId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly kind: string; readonly data: unknown }>`
      SELECT kind, data FROM outbox_events WHERE project_id = ${projectId} ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map((row) => ({ kind: row.kind, data: typeof row.data === "string" ? JSON.parse(row.data) : row.data }))),
      Effect.orDie
    ))

/** Only this test's work is due: earlier tests' leftovers would be claimed too. */
export const clearDeliveries = Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(sql`DELETE FROM posts`))
