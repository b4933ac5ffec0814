import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ApiKeyId, ApiKeyStore, PostStore, Project, ProjectAdmin, ProjectStore, RateLimitStore } from "@herald/core"
import { DateTime, Deferred, Effect, Fiber, ManagedRuntime, Option, Redacted } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { ReadCache } from "../src/ChangeNotices.js"
import { listMaxAge } from "../src/PostListCache.js"
import { StorageLive } from "../src/index.js"
import { shareOf } from "../src/PostgresRateLimitStore.js"
import { credentialsKey, newPost, newProject, throwawaySchema } from "./fixtures.js"

describe("ReadCache", () => {
  it.effect("keeps a read, and serves it until its group is evicted", () =>
    Effect.gen(function*() {
      const cache = new ReadCache<number>(() => true, 100, 60_000)
      let reads = 0
      let built = 0
      // A hit does not even build the read.
      const read = () => (built++, Effect.sync(() => ++reads))
      expect(yield* cache.through("p1", "k", read)).toBe(1)
      expect(yield* cache.through("p1", "k", read)).toBe(1)
      cache.evict("p2")
      expect(yield* cache.through("p1", "k", read)).toBe(1)
      cache.evict("p1")
      expect(yield* cache.through("p1", "k", read)).toBe(2)
      expect(built).toBe(2)
    }))

  it.effect("serves a read that raced a change once, and does not keep it", () =>
    Effect.gen(function*() {
      const cache = new ReadCache<string>(() => true, 100, 60_000)
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const slow = Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)).pipe(Effect.as("before the change"))
      const inFlight = yield* Effect.fork(cache.through("p1", "k", () => slow))
      yield* Deferred.await(started)
      cache.evict("p1")
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(inFlight)).toBe("before the change")
      expect(yield* cache.through("p1", "k", () => Effect.succeed("after the change"))).toBe("after the change")
    }))

  it.effect("holds at most its capacity, then starts over", () =>
    Effect.gen(function*() {
      const cache = new ReadCache<string>(() => true, 2, 60_000)
      let reads = 0
      const read = (value: string) => Effect.sync(() => (reads++, value))
      yield* cache.through("p1", "a", () => read("a"))
      yield* cache.through("p2", "b", () => read("b"))
      yield* cache.through("p1", "a", () => read("a"))
      expect(reads).toBe(2)
      // A third entry does not fit: everything goes, and the read is served without being kept.
      yield* cache.through("p3", "c", () => read("c"))
      yield* cache.through("p1", "a", () => read("a"))
      yield* cache.through("p1", "a", () => read("a"))
      expect(reads).toBe(4)
    }))

  it.effect("reads again what is older than its maximum age", () =>
    Effect.gen(function*() {
      const cache = new ReadCache<number>(() => true, 100, 0)
      let reads = 0
      const read = Effect.sync(() => ++reads)
      yield* cache.through("p1", "k", () => read)
      yield* cache.through("p1", "k", () => read)
      expect(reads).toBe(2)
    }))

  it.effect("keeps nothing while notices cannot be trusted", () =>
    Effect.gen(function*() {
      let trusted = false
      const cache = new ReadCache<number>(() => trusted, 100, 60_000)
      let reads = 0
      const read = Effect.sync(() => ++reads)
      yield* cache.through("p1", "k", () => read)
      yield* cache.through("p1", "k", () => read)
      expect(reads).toBe(2)
      trusted = true
      yield* cache.through("p1", "k", () => read)
      yield* cache.through("p1", "k", () => read)
      expect(reads).toBe(3)
    }))

  describe("misses of one entry while a read is under way", () => {
    /** A read that waits for `release`, counting how many began. */
    const gatedReads = <A, E>(value: (n: number) => Effect.Effect<A, E>) =>
      Effect.gen(function*() {
        const release = yield* Deferred.make<void>()
        let began = 0
        const read = () => Effect.suspend(() => Effect.zipRight(Deferred.await(release), value(++began)))
        return { read, began: () => began, release: Deferred.succeed(release, undefined) }
      })
    const callers = <A, E>(n: number, through: () => Effect.Effect<A, E>) =>
      Effect.forEach(Array.from({ length: n }), () => Effect.fork(through()))

    it.effect("share that read", () =>
      Effect.gen(function*() {
        const cache = new ReadCache<number>(() => true, 100, 60_000)
        const gate = yield* gatedReads((n) => Effect.succeed(n))
        const fibers = yield* callers(5, () => cache.through("p1", "k", gate.read))
        yield* Effect.yieldNow()
        yield* gate.release
        expect(yield* Effect.forEach(fibers, Fiber.join)).toEqual([1, 1, 1, 1, 1])
        expect(gate.began()).toBe(1)
      }))

    it.effect("do not join a read that began before an eviction: they read again", () =>
      Effect.gen(function*() {
        const cache = new ReadCache<string>(() => true, 100, 60_000)
        const gate = yield* gatedReads((n) => Effect.succeed(n === 1 ? "before the change" : "after the change"))
        const [early] = yield* callers(1, () => cache.through("p1", "k", gate.read))
        yield* Effect.yieldNow()
        cache.evict("p1")
        const [late] = yield* callers(1, () => cache.through("p1", "k", gate.read))
        yield* Effect.yieldNow()
        yield* gate.release
        expect(yield* Fiber.join(early!)).toBe("before the change")
        expect(yield* Fiber.join(late!)).toBe("after the change")
        expect(gate.began()).toBe(2)
      }))

    it.effect("read for themselves when the shared read fails", () =>
      Effect.gen(function*() {
        const cache = new ReadCache<number>(() => true, 100, 60_000)
        const gate = yield* gatedReads((n): Effect.Effect<number, string> =>
          n === 1 ? Effect.fail("the database went away") : Effect.succeed(n)
        )
        const fibers = yield* callers(3, () => cache.through("p1", "k", gate.read))
        yield* Effect.yieldNow()
        yield* gate.release
        const results = yield* Effect.forEach(fibers, (fiber) => Effect.either(Fiber.join(fiber)))
        expect(results.map((result) => result._tag === "Left" ? result.left : result.right).sort()).toEqual([2, 3, "the database went away"])
        expect(gate.began()).toBe(3)
      }))

    it.effect("are not shared while notices cannot be trusted", () =>
      Effect.gen(function*() {
        const cache = new ReadCache<number>(() => false, 100, 60_000)
        const gate = yield* gatedReads((n) => Effect.succeed(n))
        const fibers = yield* callers(3, () => cache.through("p1", "k", gate.read))
        yield* Effect.yieldNow()
        yield* gate.release
        expect((yield* Effect.forEach(fibers, Fiber.join)).sort()).toEqual([1, 2, 3])
      }))
  })
})

const url = process.env.DATABASE_URL ?? ""

describe.skipIf(url === "")("change notices and rate limits across processes (needs DATABASE_URL: PostgreSQL only)", () => {
  // Two storages on one schema stand for two processes: each has its own pool, LISTEN and caches.
  // The schema is named when the suite starts, as the suite is collected without DATABASE_URL too.
  let schema: string
  const admin = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  const storage = (scoped: string) =>
    ManagedRuntime.make(
      StorageLive.layer({ databaseUrl: Option.some(Redacted.make(scoped)), dataDir: "unused", credentialsKey })
    )
  let one: ReturnType<typeof storage>
  let two: ReturnType<typeof storage>

  /** An UPDATE that raises no change notice (triggers off for its transaction): what a cache alone would miss. */
  const silently = (statement: string) =>
    admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(Effect.zipRight(
        sql.unsafe(`SET LOCAL session_replication_role = replica`),
        sql.unsafe(statement.replaceAll("{schema}", schema))
      ))))

  const eventually = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 10_000
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  beforeAll(async () => {
    const throwaway = throwawaySchema(url)
    schema = throwaway.schema
    await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`))
    one = storage(throwaway.url)
    await one.runPromise(Effect.void)
    two = storage(throwaway.url)
    await two.runPromise(Effect.void)
  }, 60_000)
  afterAll(async () => {
    await one.dispose()
    await two.dispose()
    await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`))
    await admin.dispose()
  }, 60_000)

  const nameIn = (runtime: typeof one, project: ReturnType<typeof newProject>) =>
    runtime.runPromise(Effect.map(Effect.flatMap(ProjectStore, (store) => store.get(project.id)), (found) => Option.getOrThrow(found).name))

  it("a project changed by one process is read fresh by the other, and by itself at once", async () => {
    const project = newProject()
    await one.runPromise(Effect.flatMap(ProjectAdmin, (projects) => projects.create(project)))
    // The cache is real: once process two trusts its notices, a write that raises none goes unseen.
    let attempt = 0
    await eventually(async () => {
      const before = await nameIn(two, project)
      await silently(`UPDATE {schema}.projects SET name = 'unseen ${++attempt}' WHERE id = '${project.id}'`)
      return (await nameIn(two, project)) === before
    }, "process two caches its reads")

    await one.runPromise(Effect.flatMap(ProjectAdmin, (projects) => projects.update(new Project({ ...project, name: "Renamed by one" }))))
    expect(await nameIn(one, project)).toBe("Renamed by one")
    await eventually(async () => (await nameIn(two, project)) === "Renamed by one", "process two sees the rename")
  }, 30_000)

  it("a post created by one process shows in the other's lists within their maximum age", async () => {
    const project = newProject()
    await one.runPromise(Effect.flatMap(ProjectAdmin, (projects) => projects.create(project)))
    const first = newPost({ projectId: project.id })
    await one.runPromise(Effect.flatMap(PostStore, (posts) => posts.create(first)))
    const captionsIn = (runtime: typeof one) =>
      runtime.runPromise(Effect.map(
        Effect.flatMap(PostStore, (posts) => posts.list(project.id, { statuses: null, limit: 50 })),
        (records) => records.map((record) => record.post.caption)
      ))
    let attempt = 0
    await eventually(async () => {
      const before = await captionsIn(two)
      await silently(`UPDATE {schema}.posts SET caption = 'unseen ${++attempt}' WHERE id = '${first.record.post.id}'`)
      return JSON.stringify(await captionsIn(two)) === JSON.stringify(before)
    }, "process two caches its lists")

    const second = newPost({ projectId: project.id })
    await one.runPromise(Effect.flatMap(PostStore, (posts) => posts.create(second)))
    const created = Date.now()
    expect(await captionsIn(one)).toHaveLength(2)
    await eventually(async () => (await captionsIn(two)).length === 2, "process two lists the new post")
    // Its list had been read just before the create, so it was at most listMaxAge old (and some slack for a loaded box).
    expect(Date.now() - created).toBeLessThan(listMaxAge + 2_000)
  }, 30_000)

  it("a key revoked through one process is refused by the other", async () => {
    const project = newProject()
    await one.runPromise(Effect.flatMap(ProjectAdmin, (projects) => projects.create(project)))
    const hash = createHash("sha256").update(randomUUID()).digest("hex") as never
    const id = ApiKeyId.make(randomUUID())
    const now = DateTime.unsafeMake(Date.now())
    await one.runPromise(Effect.flatMap(ApiKeyStore, (keys) =>
      keys.create({
        id,
        projectId: project.id,
        name: "k",
        hash,
        prefix: "hk_human_abcd",
        kind: "human",
        scopes: ["posts:read"],
        rateLimitPerMinute: 60,
        dailyPostCap: null,
        createdAt: now
      })))
    const revokedIn = (runtime: typeof one) =>
      runtime.runPromise(Effect.map(Effect.flatMap(ApiKeyStore, (keys) => keys.findByHash(hash)), (found) => Option.getOrThrow(found).revoked))
    expect(await revokedIn(two)).toBe(false)
    await one.runPromise(Effect.flatMap(ApiKeyStore, (keys) => keys.revoke(project.id, id, now)))
    expect(await revokedIn(one)).toBe(true)
    await eventually(() => revokedIn(two), "process two sees the revoke")
  }, 30_000)

  it("two processes never admit more than a key's limit between them", async () => {
    const keyId = ApiKeyId.make(randomUUID())
    const limit = 500
    expect(shareOf(limit)).toBe(5)
    const now = DateTime.unsafeMake(Date.now())
    const burst = (runtime: typeof one) =>
      runtime.runPromise(Effect.flatMap(RateLimitStore, (limits) =>
        Effect.all(Array.from({ length: 400 }, () => limits.hit(keyId, limit, now)), { concurrency: 16 })))
    const [a, b] = await Promise.all([burst(one), burst(two)])
    const verdicts = [...a, ...b]
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(limit)
    expect(verdicts.every((v) => v.remaining >= 0 && v.remaining < limit)).toBe(true)
    expect(verdicts.filter((v) => !v.allowed).every((v) => v.remaining === 0)).toBe(true)
    const [row] = await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ readonly hits: number }>`SELECT hits FROM ${sql(schema)}.rate_limit_windows WHERE key_id = ${keyId}`))
    expect(row!.hits).toBe(limit)
  }, 30_000)
})
