// The embedded database as a test run starts it: the run's global setup (EmbeddedSnapshotSetup.ts)
// has PGlite initialise an empty data directory once (initdb, the slow part of a first start) and
// the storage migrate it, the path every new database takes; `embeddedDataDir` gives each test that
// wants a database of its own a copy of that directory, which opens as a restart does, with
// nothing left to migrate.
// The copies live in the run's folder (in memory where the machine allows), which the setup removes
// at the end of the run with whatever a test left there. Tests of a first start on an empty
// directory use a plain temporary directory instead.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { inject } from "vitest"

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder that holds the run's embedded databases. */
    readonly embeddedRoot: string
    /** The data directory of the initialised embedded database this run copies. */
    readonly embeddedSnapshot: string
  }
}

/**
 * A new temporary data directory holding a copy of the run's initialised database (an empty
 * one when the run made no snapshot).
 */
export const embeddedDataDir = (prefix = "herald-test-") => {
  const root = inject("embeddedRoot") as string | undefined
  const dataDir = Fs.mkdtempSync(Path.join(root ?? Os.tmpdir(), prefix))
  const snapshot = inject("embeddedSnapshot") as string | undefined
  if (snapshot !== undefined) Fs.cpSync(snapshot, dataDir, { recursive: true, mode: Fs.constants.COPYFILE_FICLONE })
  return dataDir
}
