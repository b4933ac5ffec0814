import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Redacted } from "effect"
import * as Net from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"
import { json, startHerald } from "./TestHerald.js"

const ready = async (origin: string) => {
  const reply = await fetch(`${origin}/health/ready`)
  return { status: reply.status, body: await json(reply) }
}

describe("liveness and readiness", () => {
  it("answers live and ready on a running server, and /health as before", async () => {
    const herald = await startHerald({ workers: false })
    try {
      const live = await fetch(`${herald.origin}/health/live`)
      expect(live.status).toBe(200)
      expect(await json(live)).toEqual({ status: "alive" })
      expect(await ready(herald.origin)).toEqual({ status: 200, body: { ready: true, reason: null } })
      const health = await json(await fetch(`${herald.origin}/health`))
      expect(health.database).toEqual({ reachable: true })
    } finally {
      await herald.close()
    }
  }, 60_000)

  it("is not ready while draining: from the moment it starts stopping until it closes", async () => {
    const herald = await startHerald({ workers: false, drainDelay: Duration.seconds(1) })
    let closed = false
    const closing = herald.close().then(() => void (closed = true))
    // Asked until it answers otherwise than ready: draining starts once the closing reaches the
    // server's part, and lasts the drain delay.
    let answer = await ready(herald.origin)
    while (answer.status === 200 && !closed) answer = await ready(herald.origin)
    expect(answer).toEqual({ status: 503, body: { ready: false, reason: "draining" } })
    // Live still: the process answers, it is only leaving the rotation.
    expect((await fetch(`${herald.origin}/health/live`)).status).toBe(200)
    await closing
  }, 60_000)
})

describe.skipIf(databaseUrl === "")("readiness on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", () => {
  const schemas: Array<Awaited<ReturnType<typeof throwawaySchema>>> = []
  afterAll(() => Promise.all(schemas.map((schema) => schema.drop())))

  it("is not ready while a migration runs on the database (another process holds the migrations lock)", async () => {
    const schema = await throwawaySchema("herald_ready")
    schemas.push(schema)
    const herald = await startHerald({ workers: false, databaseUrl: schema.url })
    try {
      expect((await ready(herald.origin)).body).toEqual({ ready: true, reason: null })
      // What @effect/sql's migrator does for the length of a run, from another connection.
      const migrator = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`LOCK TABLE herald_migrations IN ACCESS EXCLUSIVE MODE`
          return yield* Effect.promise(() => ready(herald.origin))
        })))
      const during = await Effect.runPromise(migrator.pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(schema.url), maxConnections: 1 }))
      ))
      expect(during).toEqual({ status: 503, body: { ready: false, reason: "migrating" } })
      expect((await ready(herald.origin)).body).toEqual({ ready: true, reason: null })
    } finally {
      await herald.close()
    }
  }, 60_000)

  it("is not ready while the database does not answer", async () => {
    const schema = await throwawaySchema("herald_ready")
    schemas.push(schema)
    // Herald reaches PostgreSQL through a TCP relay the test can cut.
    const target = new URL(schema.url)
    const sockets = new Set<Net.Socket>()
    const relay = Net.createServer((client) => {
      const upstream = Net.connect(Number(target.port || 5432), target.hostname)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on("error", () => socket.destroy())
        socket.on("close", () => sockets.delete(socket))
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve))
    const relayed = new URL(schema.url)
    relayed.hostname = "127.0.0.1"
    relayed.port = String((relay.address() as Net.AddressInfo).port)
    const herald = await startHerald({ workers: false, databaseUrl: relayed.toString() })
    try {
      expect((await ready(herald.origin)).body).toEqual({ ready: true, reason: null })
      await new Promise<void>((resolve) => {
        relay.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      })
      expect(await ready(herald.origin)).toEqual({ status: 503, body: { ready: false, reason: "database_unreachable" } })
      expect((await fetch(`${herald.origin}/health/live`)).status).toBe(200)
    } finally {
      await herald.close()
    }
  }, 60_000)
})
