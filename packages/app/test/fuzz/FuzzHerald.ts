import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { PostView, Receipt } from "@herald/core"
import { type RunningSimulator, startSimulator } from "@herald/publishers"
import { Effect, Either, ManagedRuntime, Redacted, Schema } from "effect"
import { vi } from "vitest"
import { makeFixtures } from "../media/MediaTestServer.js"
import { startHerald } from "../TestHerald.js"
import { documentedCodes } from "./DocumentedCodes.js"
import { type FuzzRequest, type FuzzWorld, multipart, type OpenApiDocument, type Operation, operationsOf } from "./OpenApiRequests.js"
import { type Exchange, exchange } from "./RawExchange.js"

/** A fresh schema on the PostgreSQL at `url`: the URL whose connections use it, queries into it, and its removal. */
const scratchSchema = async (url: string) => {
  const schema = `herald_fuzz_${randomBytes(6).toString("hex")}`
  const scoped = new URL(url)
  scoped.searchParams.set("options", `-c search_path=${schema}`)
  const admin = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  const sql = <A>(run: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    admin.runPromise(Effect.flatMap(SqlClient.SqlClient, run))
  await sql((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  return {
    url: scoped.toString(),
    /** Runs a query; `tables` names the scratch schema (`SELECT ... FROM ${tables}.posts`). */
    query: <Row extends object>(text: (tables: string) => string) => sql((sql) => sql.unsafe<Row>(text(schema))),
    drop: async () => {
      await sql((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)
      await admin.dispose()
    }
  }
}

const statuses = ["pending_approval", "scheduled", "processing", "posted", "partial", "failed", "rejected", "draft"] as const

type Json = ReturnType<typeof JSON.parse>

/**
 * The reference server fuzzed on one database (PGlite, or a fresh schema of the PostgreSQL at
 * `url`), with the simulator it publishes to (its DELETEs counted), real keys for both kinds of
 * actor, a sandbox project for the admin API, posts, deliveries, media and tickets to aim at, and
 * the pools of ids the fuzz run grows.
 */
export const startFuzzHerald = async (url: string | undefined) => {
  const schema = url === undefined ? undefined : await scratchSchema(url)
  // Each answer waits a little, so concurrent calls for one delivery overlap at the platform.
  const simulator: RunningSimulator = await startSimulator({ latency: { minMs: 40, maxMs: 60 } })
  const deletes = vi.spyOn(simulator.network, "takedown")
  const herald = await startHerald({ databaseUrl: schema?.url, simulatorUrl: simulator.url })
  const codes = documentedCodes()

  const send = (method: string, path: string, options: { readonly token?: string | null; readonly json?: unknown; readonly headers?: ReadonlyArray<readonly [string, string]>; readonly body?: Buffer } = {}) =>
    exchange(herald.origin, {
      method,
      path,
      headers: [
        ...(options.token === undefined || options.token === null ? [] : [["authorization", `Bearer ${options.token}`] as const]),
        ...(options.json === undefined ? [] : [["content-type", "application/json"] as const]),
        ...(options.headers ?? [])
      ],
      body: options.json === undefined ? options.body : Buffer.from(JSON.stringify(options.json))
    })
  const bodyOf = (reply: Exchange): Json => JSON.parse(reply.body.toString("utf8"))
  /** A call the set-up needs to succeed. */
  const must = async (method: string, path: string, options: Parameters<typeof send>[2] = {}) => {
    const reply = await send(method, path, options)
    if (reply.status === null || reply.status >= 300) {
      throw new Error(`set-up: ${method} ${path} answered ${reply.status ?? reply.failure}: ${reply.body.toString("utf8").slice(0, 300)}`)
    }
    return bodyOf(reply)
  }
  const admin = herald.credentials.admin_token
  const demo = herald.credentials.project_id

  // Keys with room for thousands of requests a minute; one revoked key, to be refused.
  const keyOf = async (projectId: string, kind: "human" | "agent", scopes: ReadonlyArray<string>) =>
    must("POST", `/admin/v1/projects/${projectId}/keys`, { token: admin, json: { name: `fuzz ${kind}`, kind, scopes, rate_limit_per_minute: 1_000_000 } })
  const human = (await keyOf(demo, "human", ["posts:read", "posts:write", "posts:approve"])).key as string
  const agent = (await keyOf(demo, "agent", ["posts:read", "posts:write"])).key as string
  const revoked = await keyOf(demo, "human", ["posts:read", "posts:write"])
  await must("POST", `/admin/v1/projects/${demo}/keys/${revoked.id}/revoke`, { token: admin })
  // An account whose posts the platform refuses: its deliveries fail, so retry has targets.
  await must("POST", `/admin/v1/projects/${demo}/accounts`, { token: admin, json: { platform: "x", username: "partial_fail" } })

  // The admin API is fuzzed inside a sandbox project, so it cannot revoke the keys the run uses.
  const sandbox = await must("POST", "/admin/v1/projects", { token: admin, json: { name: "Sandbox" } })
  const sandboxKey = await keyOf(sandbox.id, "human", ["posts:read"])
  const sandboxAccount = await must("POST", `/admin/v1/projects/${sandbox.id}/accounts`, { token: admin, json: { platform: "bluesky", username: "sandbox" } })
  const sandboxWebhook = await must("POST", `/admin/v1/projects/${sandbox.id}/webhooks`, {
    token: admin,
    json: { url: "https://hooks.example.invalid/herald", kinds: ["post.published"] }
  })

  const accounts = (await must("GET", "/api/v1/social-accounts", { token: human })).data as ReadonlyArray<{ id: string; platform: string; username: string }>
  const refs = accounts.map((account) => `${account.platform}:${account.username}`)

  const fixtures = makeFixtures()
  const pools = {
    posts: [] as Array<string>,
    deliveries: [] as Array<string>,
    media: [] as Array<string>,
    tickets: [] as Array<string>,
    projects: [sandbox.id as string],
    keys: [sandboxKey.id as string],
    accounts: [sandboxAccount.id as string],
    webhooks: [sandboxWebhook.id as string]
  }
  /** The caption each post was created with, to compare with what is stored. */
  const captions = new Map<string, string | null>()

  const createPost = async (token: string, body: object) => {
    const created = await must("POST", "/api/v1/posts", { token, json: body })
    pools.posts.push(created.id)
    captions.set(created.id, "caption" in body ? String(body.caption) : null)
    return created.id as string
  }
  const receiptOf = async (postId: string) => Schema.decodeUnknownSync(Receipt)(await must("GET", `/api/v1/post-results?post_id=${postId}`, { token: human }))
  /** Waits until every delivery of the post is final (the simulator answers within a second). */
  const settled = async (postId: string) => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const receipt = await receiptOf(postId)
      if (receipt.data.every((row) => ["success", "failed", "taken_down"].includes(row.status))) return receipt
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`set-up: post ${postId} did not settle`)
  }

  // Posts in several states: a draft, one held for approval, one published to two networks
  // (takedown targets), one partly failed (a retry target), one scheduled.
  await createPost(human, { caption: "Fuzz draft", social_accounts: ["x:herald_demo"], is_draft: true })
  await createPost(agent, { caption: "Fuzz held for approval", social_accounts: ["x:herald_demo"] })
  await createPost(human, { caption: "Fuzz scheduled", social_accounts: ["x:herald_demo"], scheduled_at: new Date(Date.now() + 86_400_000).toISOString() })
  for (const postId of [
    await createPost(human, { caption: "Fuzz published", social_accounts: ["x:herald_demo", "bluesky:herald_demo"] }),
    await createPost(human, { caption: "Fuzz partly failed", social_accounts: ["x:partial_fail", "bluesky:herald_demo"] })
  ]) {
    pools.deliveries.push(...(await settled(postId)).data.map((row) => row.id))
  }
  const uploaded = multipart([["file", { name: "photo.png", type: "image/png", bytes: fixtures.png }], ["alt_text", "a red square"]])
  pools.media.push((await must("POST", "/api/v1/media", {
    token: human,
    headers: [["content-type", `multipart/form-data; boundary=${uploaded.boundary}`]],
    body: uploaded.body
  })).id)
  pools.tickets.push((await must("POST", "/api/v1/media/ticket", { token: human })).ticket)

  const document = await must("GET", "/api/v1/openapi.json") as OpenApiDocument
  const adminDocument = await must("GET", "/admin/v1/openapi.json") as OpenApiDocument

  /** Real values by parameter or field name (the post and delivery ids share the name `id`). */
  const known = (operation: Operation, name: string): ReadonlyArray<string> => {
    switch (name) {
      case "id":
        return operation.path.startsWith("/api/v1/post-results/") ? pools.deliveries : operation.path.startsWith("/api/v1/posts/") ? pools.posts : []
      case "post_id":
        return pools.posts
      case "social_accounts":
      case "accounts":
        // Text-only posts are valid on x and bluesky: weighted so that many creates succeed.
        return [...refs, ...Array.from({ length: 4 }, () => ["x:herald_demo", "bluesky:herald_demo"]).flat()]
      case "account_ids":
        return [...refs, ...accounts.map((account) => account.id), refs.slice(0, 3).join(",")]
      case "media_ids":
        return pools.media
      case "ticket":
        return pools.tickets
      case "project_id":
        return pools.projects
      case "key_id":
        return pools.keys
      case "account_id":
        return pools.accounts
      case "webhook_id":
        return pools.webhooks
      case "url":
      case "media_urls":
        return ["https://[::127.0.0.1]/a.png", "https://127.0.0.1/a.png", "http://media.example.invalid/a.png", "https://media.example.invalid/a.png", "https://[::ffff:10.0.0.1]/a.png"]
      case "caption":
        return ["Launch day", "Shipped: the new release #launch", "Fuzz caption ✓"]
      case "scheduled_at":
        return [new Date(Date.now() + 3_600_000).toISOString(), new Date(Date.now() + 86_400_000).toISOString()]
      case "status":
        return operation.path === "/api/v1/posts" ? [...statuses, "draft,scheduled"] : []
      case "limit":
        return ["1", "50", "100", "0", "101"]
      case "timezone":
        return ["Europe/Paris", "UTC", "Mars/Olympus_Mons"]
      case "username":
        return ["fuzz_user"]
      case "people_tags":
        return ["herald_demo", "@nobody_here"]
      default:
        return []
    }
  }

  const world: FuzzWorld = {
    credentials: { bearer: [human, agent], adminToken: [admin] },
    refusedCredentials: [revoked.key],
    known,
    files: [
      { name: "photo.png", type: "image/png", bytes: fixtures.png },
      { name: "doc.pdf", type: "application/pdf", bytes: fixtures.pdf },
      { name: "notes.txt", type: "text/plain", bytes: fixtures.text },
      { name: "lies.png", type: "image/png", bytes: Buffer.from("not a picture at all") }
    ]
  }

  /** The pool of the resource each create operation makes (its reply's `id`). */
  const createdIn: Readonly<Record<string, Array<string>>> = {
    "POST /api/v1/media": pools.media,
    "POST /admin/v1/projects": pools.projects,
    "POST /admin/v1/projects/{project_id}/keys": pools.keys,
    "POST /admin/v1/projects/{project_id}/accounts": pools.accounts,
    "POST /admin/v1/projects/{project_id}/webhooks": pools.webhooks
  }

  /**
   * The JSON a request sent, when it was JSON, read as the server reads it: a TextDecoder drops a
   * leading byte order mark (RFC 8259 lets a parser ignore it), which Buffer's toString keeps.
   */
  const sentJson = (request: FuzzRequest): Json =>
    Either.getOrNull(Either.try(() => JSON.parse(new TextDecoder().decode(request.raw.body ?? new Uint8Array()))))
  const captionOf = (sent: Json): string | null => typeof sent?.caption === "string" ? sent.caption : null

  /** Adds the ids a successful reply names to the pools (so later requests aim at them), and the captions posts were created with. */
  const harvest = (request: FuzzRequest, reply: Exchange) => {
    if (reply.status === null || reply.status >= 300 || !String(reply.headers["content-type"] ?? "").includes("json")) return
    const body = bodyOf(reply)
    const add = (pool: Array<string>, id: unknown) => {
      if (typeof id === "string" && !pool.includes(id)) pool.push(id)
    }
    switch (request.operation) {
      case "POST /api/v1/posts":
        add(pools.posts, body.id)
        if (reply.status === 201) captions.set(body.id, captionOf(sentJson(request)))
        break
      case "PATCH /api/v1/posts/{id}":
        add(pools.posts, body.id)
        break
      case "POST /api/v1/posts/bulk": {
        const rows = sentJson(request)?.rows
        for (const result of body.results) {
          add(pools.posts, result.id)
          if (result.code === "created" && Array.isArray(rows)) captions.set(result.id, captionOf(rows[result.row]))
        }
        break
      }
      case "GET /api/v1/posts":
        for (const row of body.data) for (const target of row.targets) add(pools.deliveries, target.delivery_id)
        break
      case "POST /api/v1/media/attach/{ticket}":
        add(pools.media, body.media_id)
        break
      case "POST /api/v1/media/ticket":
        add(pools.tickets, body.ticket)
        break
      default: {
        const pool = createdIn[request.operation]
        if (pool !== undefined) add(pool, body.id)
      }
    }
  }

  /**
   * What is wrong with a reply, or null: a cut connection, a 5xx, a 4xx whose body is not
   * `{ error, code }` with a documented code, a success that is not the JSON it claims.
   */
  const problemWith = (reply: Exchange): string | null => {
    if (reply.failure !== null) return `the connection failed (${reply.failure}) after status ${reply.status ?? "none"}`
    const status = reply.status!
    const text = reply.body.toString("utf8")
    if (status >= 500) return `answered ${status}: ${text.slice(0, 300)}`
    const isJson = String(reply.headers["content-type"] ?? "").includes("application/json")
    if (status >= 400) {
      if (!isJson) return `answered ${status} with content-type ${reply.headers["content-type"] ?? "none"}: ${JSON.stringify(text.slice(0, 200))}`
      const parsed = Either.try(() => JSON.parse(text) as Json)
      if (Either.isLeft(parsed)) return `answered ${status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`
      const body = parsed.right
      if (typeof body?.error !== "string" || typeof body?.code !== "string") return `answered ${status} without { error, code }: ${text.slice(0, 300)}`
      if (!codes.has(body.code)) return `answered ${status} with code ${body.code}, which docs/api.md does not list`
      return null
    }
    if (isJson && Either.isLeft(Either.try(() => JSON.parse(text)))) return `answered ${status} with broken JSON: ${text.slice(0, 200)}`
    return null
  }

  /**
   * What is stored inconsistently, read back through the API (and, on PostgreSQL, from the tables):
   * every listed post decodes, has deliveries, and its receipts are exactly its deliveries; each
   * post reads back with the caption it was created with; the platform saw at most one publish per
   * delivery and at most one DELETE per platform post.
   */
  const storedProblems = async (): Promise<ReadonlyArray<string>> => {
    const problems: Array<string> = []
    for (const status of statuses) {
      const reply = await send("GET", `/api/v1/posts?status=${status}&limit=100`, { token: human })
      if (reply.status !== 200) {
        problems.push(`GET /posts?status=${status} answered ${reply.status ?? reply.failure}: ${reply.body.toString("utf8").slice(0, 200)}`)
        continue
      }
      for (const raw of bodyOf(reply).data as ReadonlyArray<unknown>) {
        const decoded = Schema.decodeUnknownEither(PostView)(raw)
        if (Either.isLeft(decoded)) {
          problems.push(`a ${status} row does not decode: ${decoded.left.message.slice(0, 300)}`)
          continue
        }
        const row = decoded.right
        if (row.status !== status) problems.push(`post ${row.id} listed under ${status} is ${row.status}`)
        if (row.targets.length === 0) problems.push(`post ${row.id} (${row.status}) has no deliveries`)
        const sent = captions.get(row.id)
        if (sent !== undefined && sent !== row.caption) {
          problems.push(`post ${row.id} was created with caption ${JSON.stringify(sent).slice(0, 80)} but reads back ${JSON.stringify(row.caption).slice(0, 80)}`)
        }
        const receipt = await send("GET", `/api/v1/post-results?post_id=${row.id}`, { token: human })
        if (receipt.status !== 200) {
          problems.push(`GET /post-results for ${row.id} answered ${receipt.status ?? receipt.failure}`)
          continue
        }
        const receipts = Schema.decodeUnknownEither(Receipt)(bodyOf(receipt))
        if (Either.isLeft(receipts)) {
          problems.push(`the receipts of ${row.id} do not decode: ${receipts.left.message.slice(0, 300)}`)
          continue
        }
        const listed = row.targets.map((target) => `${target.delivery_id}/${target.account_id}`).sort()
        const received = receipts.right.data.map((line) => `${line.id}/${line.account_id}`).sort()
        if (listed.join() !== received.join()) problems.push(`post ${row.id} lists deliveries ${listed.join()} but its receipts are ${received.join()}`)
      }
    }
    for (const record of simulator.network.publishes()) {
      if (record.postIds.length > 1) problems.push(`delivery ${record.marker} was published ${record.postIds.length} times`)
    }
    const deleted = new Map<string, number>()
    for (const [, id] of deletes.mock.calls) deleted.set(id, (deleted.get(id) ?? 0) + 1)
    for (const [id, times] of deleted) if (times > 1) problems.push(`the platform got ${times} DELETEs for post ${id}`)
    if (schema !== undefined) {
      const orphans = await schema.query<{ id: string; accounts: number; deliveries: number }>((tables) =>
        `SELECT p.id, cardinality(p.account_ids) AS accounts, count(d.id)::int AS deliveries
           FROM ${tables}.posts p LEFT JOIN ${tables}.deliveries d ON d.post_id = p.id
          GROUP BY p.id HAVING count(d.id) <> cardinality(p.account_ids)`
      )
      for (const row of orphans) problems.push(`post ${row.id} has ${row.accounts} accounts but ${row.deliveries} deliveries`)
      const strays = await schema.query<{ id: string }>((tables) =>
        `SELECT d.id FROM ${tables}.deliveries d JOIN ${tables}.posts p ON p.id = d.post_id
          WHERE d.project_id <> p.project_id OR NOT d.account_id = ANY (p.account_ids)`
      )
      for (const row of strays) problems.push(`delivery ${row.id} does not belong to its post's project or accounts`)
    }
    return problems
  }

  return {
    herald,
    /** How many DELETEs the platform got for one of its posts. */
    deletesOf: (platformPostId: string) => deletes.mock.calls.filter(([, id]) => id === platformPostId).length,
    world,
    operations: [...operationsOf(document), ...operationsOf(adminDocument)],
    tokens: { human, agent, admin },
    sandbox: sandbox.id as string,
    pools,
    refs,
    fixtures,
    codes,
    send,
    bodyOf,
    must,
    createPost,
    settled,
    harvest,
    problemWith,
    storedProblems,
    close: async () => {
      await herald.close()
      await simulator.close()
      await schema?.drop()
    }
  }
}
export type FuzzHerald = Awaited<ReturnType<typeof startFuzzHerald>>
