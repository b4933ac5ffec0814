import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import {
  AccountId,
  type ActorKind,
  ApiKeyId,
  BuiltinClassifier,
  ApiKeyStore,
  MediaNotConfigured,
  noGuardrails,
  type Platform,
  PostStore,
  Project,
  ProjectId,
  type Scope,
  SocialAccount,
  ConnectionCheckRuns,
  ConnectionProbes,
} from "@herald/core"
import {
  InMemoryApiKeys,
  InMemoryData,
  inMemoryRateLimits,
  makeInMemoryStores,
  noMediaIngest,
  publishersOf,
  RecordingPublisher,
  sequentialIds,
  makeInMemoryConnections,
  makeInMemoryApprovalChannels,
} from "@herald/core/memory"
import { DateTime, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createNodeServer, displayPrefix, generateApiKey, hashApiKey, HttpApiConfig, serveHttpApi } from "../src/index.js"

export const approvalSecret = Redacted.make("test-approval-secret")

/** A caption that makes the post store die mid-create, standing in for a crash inside Herald. */
export const crashCaption = "this row crashes the store"

const project = (n: number, approval: "copilot" | "autopilot", plan: "active" | "inactive", bannedWords: ReadonlyArray<string>) =>
  new Project({
    id: ProjectId.make(`10000000-0000-4000-8000-00000000000${n}`),
    name: `Project ${n} <&>`,
    timezone: "Europe/Paris",
    approval,
    signature: n === 1 ? "— Acme" : "",
    guardrails: { ...noGuardrails, banned_words: bannedWords },
    plan
  })

/**
 * A real node:http server on 127.0.0.1 (port 0) serving HttpApiLive over in-memory adapters:
 * project 1 (copilot, signature, banned word "forbidden") with x, bluesky and pinterest accounts;
 * project 2 (autopilot) for cross-project checks; project 3 whose plan is inactive.
 */
export const startServer = async () => {
  const data = new InMemoryData()
  const [one, two, three] = [
    project(1, "copilot", "active", ["forbidden"]),
    project(2, "autopilot", "active", []),
    project(3, "autopilot", "inactive", [])
  ]
  for (const p of [one, two, three]) data.projects.set(p.id, p)
  let accountNo = 0
  const connect = (projectId: ProjectId, platform: Platform) => {
    const account = new SocialAccount({
      id: AccountId.make(`20000000-0000-4000-8000-${String(++accountNo).padStart(12, "0")}`),
      projectId,
      platform,
      username: "acme",
      route: "simulator",
      status: "active"
    })
    data.accounts.set(account.id, account)
    return account
  }
  const accounts = {
    x: connect(one.id, "x"),
    bluesky: connect(one.id, "bluesky"),
    pinterest: connect(one.id, "pinterest"),
    otherX: connect(two.id, "x"),
    inactiveX: connect(three.id, "x")
  }

  const keys = new InMemoryApiKeys()
  let keyNo = 0
  const keyFor = (
    projectId: ProjectId,
    kind: ActorKind,
    scopes: ReadonlyArray<Scope>,
    options: { readonly rateLimitPerMinute?: number; readonly dailyPostCap?: number } = {}
  ) => {
    const key = generateApiKey(kind)
    const id = ApiKeyId.make(`30000000-0000-4000-8000-${String(++keyNo).padStart(12, "0")}`)
    keys.byHash.set(hashApiKey(key), {
      key: {
        id,
        projectId,
        name: `key ${keyNo}`,
        hash: hashApiKey(key),
        prefix: displayPrefix(key),
        kind,
        scopes,
        rateLimitPerMinute: options.rateLimitPerMinute ?? 1000,
        dailyPostCap: options.dailyPostCap ?? null,
        createdAt: DateTime.unsafeMake(0)
      },
      revokedAt: null,
      lastUsedAt: null
    })
    return { key, id }
  }
  const all: ReadonlyArray<Scope> = ["posts:read", "posts:write", "posts:approve"]
  const tokens = {
    human: keyFor(one.id, "human", all),
    agent: keyFor(one.id, "agent", ["posts:read", "posts:write", "posts:approve"]),
    reader: keyFor(one.id, "human", ["posts:read"]),
    writer: keyFor(one.id, "human", ["posts:write"]),
    revoked: keyFor(one.id, "human", all),
    limited: keyFor(one.id, "human", all, { rateLimitPerMinute: 2 }),
    capped: keyFor(one.id, "human", all, { dailyPostCap: 1 }),
    other: keyFor(two.id, "human", all),
    inactive: keyFor(three.id, "human", all)
  }

  const publisher = new RecordingPublisher()
  const stores = makeInMemoryStores(data)
  const crashingStores = Layer.effect(
    PostStore,
    Effect.map(PostStore, (store) =>
      PostStore.of({
        ...store,
        create: (input) =>
          input.record.post.caption === crashCaption ? Effect.dieMessage("disk on fire") : store.create(input)
      }))
  ).pipe(Layer.provideMerge(stores))
  const services = Layer.mergeAll(
    crashingStores,
    sequentialIds(),
    noMediaIngest,
    MediaNotConfigured,
    publishersOf(publisher),
    makeInMemoryConnections(data),
    makeInMemoryApprovalChannels(data),
    ConnectionProbes.layer([]),
    ConnectionCheckRuns.layer("test"),
    BuiltinClassifier,
    keys.layer,
    inMemoryRateLimits(),
    Layer.succeed(HttpApiConfig, HttpApiConfig.of({ baseUrl: "http://herald.test/", approvalSecret }))
  )
  const runtime = ManagedRuntime.make(
    serveHttpApi.pipe(
      Layer.provideMerge(NodeHttpServer.layer(createNodeServer, { port: 0, host: "127.0.0.1" })),
      Layer.provide(services)
    )
  )
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const origin = `http://127.0.0.1:${address.port}`
  await runtime.runPromise(ApiKeyStore.pipe(Effect.flatMap((store) =>
    store.revoke(one.id, tokens.revoked.id, DateTime.unsafeMake(0))
  ), Effect.provide(keys.layer)))

  /** fetch against the server with a key (or none). */
  const call = (path: string, init: RequestInit & { readonly key?: string | null; readonly json?: unknown } = {}): Promise<Reply> => {
    const { json, key, ...rest } = init
    const headers = new Headers(rest.headers)
    if (key !== null && key !== undefined) headers.set("authorization", `Bearer ${key}`)
    if (json !== undefined) headers.set("content-type", "application/json")
    return fetch(`${origin}${path}`, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) })
  }

  return {
    origin,
    call,
    data,
    keys,
    tokens,
    accounts,
    projects: { one, two, three },
    publisher,
    services,
    close: () => runtime.dispose()
  }
}
/** Replies are read loosely: the tests assert their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any
export interface Reply extends Response {
  json(): Promise<Json>
}

export type TestServer = Awaited<ReturnType<typeof startServer>>

/** The path of an approval URL (the configured base is not this test server). */
export const approvalPath = (url: string) => new URL(url).pathname
