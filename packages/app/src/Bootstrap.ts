import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import {
  type ActorKind,
  connectAccount,
  createApiKey,
  createProject,
  inSpan,
  listProjects,
  platforms,
  type ProjectId,
  type Scope
} from "@herald/core"
import { AdminTokens, generateAdminToken, hashApiKey } from "@herald/http-api"
import { Effect, Option, Redacted } from "effect"

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
  Effect.map(createApiKey(projectId, { name, kind, scopes }), ({ key }) => Redacted.value(key))

const createDemo = Effect.gen(function*() {
  const project = yield* createProject({ name: "Demo", timezone: "UTC", approval: "copilot", signature: "", plan: "active" })
  for (const platform of platforms) {
    yield* connectAccount(project.id, { platform, username: demoUsername, route: "simulator" })
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
    const projects = yield* listProjects
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
