// vitest globalSetup: the folder the run's embedded databases live in, and the initialised and
// migrated database that EmbeddedSnapshot.ts copies into it, made once a run. It runs outside the
// test workers, where "vitest" itself cannot be imported.
import { Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { TestProject } from "vitest/node"
import { StorageLive } from "../src/index.js"
import type {} from "./EmbeddedSnapshot.js"

// A database copy is about a thousand files, written on open and removed on close dozens of times
// a run: on a disk each removal waits on the filesystem's journal, in memory it does not
// (bench/README.md, "Test suite"). The databases behave the same on either.
const memoryBacked = "/dev/shm"
const runPrefix = "herald-run-"

const base = () => {
  try {
    Fs.accessSync(memoryBacked, Fs.constants.W_OK)
    return memoryBacked
  } catch {
    return Os.tmpdir()
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Folders of runs whose process has gone (killed before its teardown): memory they would hold until a reboot. */
const removeAbandoned = (parent: string) => {
  for (const name of Fs.readdirSync(parent)) {
    const pid = Number(/^herald-run-(\d+)-/.exec(name)?.[1])
    if (Number.isInteger(pid) && !alive(pid)) Fs.rmSync(Path.join(parent, name), { recursive: true, force: true })
  }
}

export const setup = async ({ provide }: TestProject) => {
  const parent = base()
  removeAbandoned(parent)
  const root = Fs.mkdtempSync(Path.join(parent, `${runPrefix}${process.pid}-`))
  const snapshot = Path.join(root, "snapshot")
  // Migrated as the storage migrates a first start (no migration seals anything in an empty
  // database, so the key is this run's own).
  const credentialsKey = Redacted.make(randomBytes(32).toString("base64"))
  await Effect.runPromise(Effect.scoped(Layer.build(StorageLive.layer({ databaseUrl: Option.none(), dataDir: snapshot, credentialsKey }))))
  provide("embeddedRoot", root)
  provide("embeddedSnapshot", snapshot)
  // Also the copies a test left behind.
  return () => Fs.rmSync(root, { recursive: true, force: true })
}
