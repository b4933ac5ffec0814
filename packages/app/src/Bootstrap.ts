import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import {
  AccountAdmin,
  AccountId,
  type ActorKind,
  ApiKeyId,
  ApiKeyStore,
  defaultRateLimitPerMinute,
  IdGenerator,
  inSpan,
  noGuardrails,
  platforms,
  Project,
  ProjectAdmin,
  ProjectId,
  type Scope,
  SocialAccount
} from "@herald/core"
import { AdminTokens, displayPrefix, generateAdminToken, generateApiKey, hashApiKey } from "@herald/http-api"
import { DateTime, Effect, Option } from "effect"

/** What the first start hands out, as written to `<data dir>/credentials.json`. */
export interface DemoCredentials {
  readonly admin_token: string
  readonly human_key: string
  readonly agent_key: string
  readonly project_id: string
}

export const credentialsFile = (dataDir: string) => Path.join(dataDir, "credentials.json")

export const demoUsername = "herald_demo"

const newKey = (projectId: ProjectId, name: string, kind: ActorKind, scopes: ReadonlyArray<Scope>) =>
  Effect.gen(function*() {
    const key = generateApiKey(kind)
    yield* Effect.flatMap(ApiKeyStore, (store) =>
      Effect.flatMap(IdGenerator, (ids) => ids.uuid).pipe(
        Effect.zip(DateTime.now),
        Effect.flatMap(([id, now]) =>
          store.create({
            id: ApiKeyId.make(id),
            projectId,
            name,
            hash: hashApiKey(key),
            prefix: displayPrefix(key),
            kind,
            scopes,
            rateLimitPerMinute: defaultRateLimitPerMinute,
            dailyPostCap: null,
            createdAt: now
          })
        )
      ))
    return key
  })

const createDemo = Effect.gen(function*() {
  const ids = yield* IdGenerator
  const project = new Project({
    id: ProjectId.make(yield* ids.uuid),
    name: "Demo",
    timezone: "UTC",
    approval: "copilot",
    signature: "",
    guardrails: noGuardrails,
    plan: "active"
  })
  yield* Effect.flatMap(ProjectAdmin, (admin) => admin.create(project))
  const accounts = yield* AccountAdmin
  for (const platform of platforms) {
    const account = new SocialAccount({
      id: AccountId.make(yield* ids.uuid),
      projectId: project.id,
      platform,
      username: demoUsername,
      route: "simulator",
      status: "active"
    })
    yield* accounts.connect(account, {})
  }
  const adminToken = generateAdminToken()
  yield* Effect.flatMap(AdminTokens, (tokens) => tokens.add(hashApiKey(adminToken)))
  return {
    admin_token: adminToken,
    human_key: yield* newKey(project.id, "demo human", "human", ["posts:read", "posts:write", "posts:approve"]),
    agent_key: yield* newKey(project.id, "demo agent", "agent", ["posts:read", "posts:write"]),
    project_id: project.id
  } satisfies DemoCredentials
})

/**
 * On an empty database: a demo project in copilot mode with one simulator account per platform,
 * an admin token, a human key (every scope) and an agent key (posts:read, posts:write). None when
 * any project exists. One transaction under an advisory lock, so processes starting together on
 * one PostgreSQL create it once.
 */
export const bootstrapDemo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext('herald-bootstrap'))`
    const projects = yield* Effect.flatMap(ProjectAdmin, (admin) => admin.list)
    return projects.length > 0 ? Option.none<DemoCredentials>() : Option.some(yield* createDemo)
  }))
}).pipe(Effect.orDie, inSpan("bootstrapDemo"))

/** Writes the credentials owner-only (0600), replacing an older file. */
export const writeCredentials = (dataDir: string, credentials: DemoCredentials) =>
  Effect.sync(() => {
    Fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    const file = credentialsFile(dataDir)
    Fs.writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 })
    Fs.chmodSync(file, 0o600)
    return file
  })

/** Reads `<data dir>/credentials.json`, if it is there. */
export const readCredentials = (dataDir: string): Option.Option<Partial<DemoCredentials>> => {
  try {
    return Option.some(JSON.parse(Fs.readFileSync(credentialsFile(dataDir), "utf8")) as Partial<DemoCredentials>)
  } catch {
    return Option.none()
  }
}
