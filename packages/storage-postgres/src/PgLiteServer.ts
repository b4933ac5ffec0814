import { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { lockDataDir } from "./DataDirLock.js"
import { openPGlite } from "./PgLiteTemplate.js"
import { ChangeNotices } from "./ChangeNotices.js"
import { Wakeups } from "./Wakeups.js"

export interface PgLiteServerOptions {
  /** Where the database lives (HERALD_DATA_DIR, default ./.herald). Created owner-only if absent. */
  readonly dataDir: string
}

/** Unix socket paths are limited to about 104 bytes; deeper data directories use loopback TCP. */
const maxSocketPath = 100

/**
 * The embedded database: PGlite on the data directory, served by pglite-socket on a Unix socket
 * inside it (or 127.0.0.1 on a free port), reached through the ordinary PgClient with a pool of
 * one, because PGlite runs one session: a second connection would share it, transactions included.
 * Wake-ups and change notices stay in memory (PGlite does not deliver NOTIFY between socket
 * connections; nothing else writes to it).
 */
export const layer = (options: PgLiteServerOptions) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const dataDir = Path.resolve(options.dataDir)
    yield* Effect.sync(() => Fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 }))
    yield* lockDataDir(dataDir)
    // PGlite and its socket server are imported here, on the embedded store only: a server on
    // PostgreSQL never holds their code (bench/README.md, Footprint).
    const [{ PGlite }, { PGLiteSocketServer }] = yield* Effect.promise(() =>
      Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite-socket")])
    )
    // PGlite's own start parameters, with shared_buffers at 16 MB instead of PostgreSQL's 128 MB:
    // the embedded database touches all of its shared buffers when it starts, so they are resident
    // from the first second. PGlite alone on an existing data directory: 299 MB resident at 128 MB,
    // 176 MB at 16 MB (bench/README.md, Footprint). Herald's working set is small, and the data
    // files stay in the operating system's page cache besides.
    const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]
    const db = yield* Effect.acquireRelease(
      Effect.promise(() => openPGlite(Path.join(dataDir, "pgdata"), startParams)),
      (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
    const socketFile = Path.join(dataDir, ".s.PGSQL.5432")
    const viaSocket = socketFile.length <= maxSocketPath
    if (viaSocket) yield* Effect.sync(() => Fs.rmSync(socketFile, { force: true }))
    const server = new PGLiteSocketServer(
      viaSocket ? { db, path: socketFile, maxConnections: 1 } : { db, host: "127.0.0.1", port: 0, maxConnections: 1 }
    )
    yield* Effect.acquireRelease(
      Effect.promise(() => server.start()),
      () => Effect.promise(() => server.stop()).pipe(Effect.ignore)
    )
    const address = viaSocket ? { host: dataDir, port: 5432 } : { host: "127.0.0.1", port: Number(server.getServerConn().split(":").at(-1)) }
    return Layer.mergeAll(
      PgClient.layer({ ...address, username: "postgres", database: "postgres", maxConnections: 1 }),
      Wakeups.inProcess,
      ChangeNotices.inProcess
    )
  }))
