import { Effect, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** Another live process holds the data directory. Opening it twice would corrupt the store. */
export class DataDirLocked extends Schema.TaggedError<DataDirLocked>()("DataDirLocked", {
  dataDir: Schema.String,
  pid: Schema.Number
}) {
  override get message(): string {
    return `the data directory ${this.dataDir} is in use by process ${this.pid}; ` +
      `stop that process, or point HERALD_DATA_DIR at another directory (or set DATABASE_URL)`
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Holds `<dataDir>/herald.pid` for the scope: created exclusively with our pid; a file left by a
 * dead process is taken over, a live owner (this process included) is refused.
 */
export const lockDataDir = (dataDir: string): Effect.Effect<void, DataDirLocked, import("effect").Scope.Scope> => {
  const file = Path.join(dataDir, "herald.pid")
  const take = (): Effect.Effect<void, DataDirLocked> =>
    Effect.suspend(() => {
      try {
        Fs.writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o600 })
        return Effect.void
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") return Effect.die(error)
      }
      const owner = Number.parseInt(Fs.readFileSync(file, "utf8").trim(), 10)
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        return Effect.fail(new DataDirLocked({ dataDir, pid: owner }))
      }
      return Effect.logWarning(`taking over ${file} left by process ${owner}, which is gone`).pipe(
        Effect.zipRight(Effect.sync(() => Fs.rmSync(file, { force: true }))),
        Effect.zipRight(take())
      )
    })
  return Effect.acquireRelease(
    take(),
    () =>
      Effect.sync(() => {
        if (Fs.readFileSync(file, "utf8").trim() === String(process.pid)) Fs.rmSync(file, { force: true })
      }).pipe(Effect.ignore)
  )
}
