import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { PgLiteServer, StorageLive } from "../src/index.js"
import { storageContract } from "./contract.js"
import { embeddedDataDir } from "./EmbeddedSnapshot.js"
import { credentialsKey } from "./fixtures.js"

storageContract(
  "PGlite (embedded)",
  StorageLive.layer({ databaseUrl: Option.none(), dataDir: embeddedDataDir("herald-pglite-"), credentialsKey })
)

/**
 * How a second process (open-data-dir.ts) ends that opens a directory this one holds open. Started
 * with the file, so it loads while the contract's tests run; its test below reads the result.
 */
const openedInSecondProcess = () =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const dir = embeddedDataDir("herald-lock-")
    yield* Layer.build(PgLiteServer.layer({ dataDir: dir }))
    const script = fileURLToPath(new URL("./open-data-dir.ts", import.meta.url))
    return yield* Effect.promise(() =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        execFile(process.execPath, ["--conditions=herald-source", "--import", "tsx", script, dir], { timeout: 30_000 }, (error, _stdout, stderr) =>
          resolve({ code: error === null ? 0 : (error as { code?: number }).code ?? null, stderr }))
      })
    )
  })))
let secondProcess: ReturnType<typeof openedInSecondProcess>
beforeAll(() => {
  secondProcess = openedInSecondProcess()
  // Read by its test; a rejection before then is not unhandled.
  secondProcess.catch(() => undefined)
})

describe("the embedded data directory", () => {
  it.effect("a second opener in this process is refused while the store is open", () =>
    Effect.gen(function*() {
      const dir = embeddedDataDir("herald-lock-")
      yield* Layer.build(PgLiteServer.layer({ dataDir: dir }))
      const second = yield* Effect.exit(Layer.build(PgLiteServer.layer({ dataDir: dir })))
      expect(second).toMatchObject(Exit.fail({ _tag: "DataDirLocked", pid: process.pid }))
    }).pipe(Effect.scoped), 60_000)

  it("a second process opening the same directory gets a clear error", async () => {
    const result = await secondProcess
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(`is in use by process ${process.pid}`)
  }, 60_000)

  it("a lock file left by a dead process is taken over", async () => {
    const dir = embeddedDataDir("herald-lock-")
    // Pid 2^22 + 1 is above Linux's pid_max ceiling, so no process has it.
    Fs.writeFileSync(Path.join(dir, "herald.pid"), String(4_194_305))
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      yield* Layer.build(PgLiteServer.layer({ dataDir: dir }))
      expect(Fs.readFileSync(Path.join(dir, "herald.pid"), "utf8")).toBe(String(process.pid))
    })))
    expect(Fs.existsSync(Path.join(dir, "herald.pid"))).toBe(false)
  }, 60_000)
})
