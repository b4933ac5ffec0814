import type { PGlite } from "@electric-sql/pglite"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"

/**
 * A freshly initialised PGlite data directory, kept as a tarball per PGlite version in the user's
 * cache directory ($XDG_CACHE_HOME/herald, else ~/.cache/herald), made once per machine: a first
 * start on an empty data directory unpacks it instead of running initdb. initdb costs about 6 s of
 * CPU and leaves the process at about 1 GB resident; unpacking the template about 1.5 s and 290 MB
 * (bench/README.md, Footprint). The first start that finds no template runs initdb as before and
 * writes one. Best effort: a cache that cannot be read or written means initdb, as without it.
 */

const pgliteVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  return (JSON.parse(Fs.readFileSync(Path.join(Path.dirname(entry), "..", "package.json"), "utf8")) as { version: string }).version
}

const cacheDir = (): string =>
  Path.join(process.env.XDG_CACHE_HOME !== undefined && process.env.XDG_CACHE_HOME !== "" ? process.env.XDG_CACHE_HOME : Path.join(Os.homedir(), ".cache"), "herald")

/** Where this PGlite version's template is (or would be) kept. */
export const templateFile = (): string => Path.join(cacheDir(), `pglite-${pgliteVersion()}-initdb.tar.gz`)

const isEmpty = (dir: string): boolean => {
  try {
    return Fs.readdirSync(dir).length === 0
  } catch {
    return true
  }
}

/** The template for this PGlite version, when one was made on this machine. */
const readTemplate = (): Blob | undefined => {
  try {
    return new Blob([Fs.readFileSync(templateFile())])
  } catch {
    return undefined
  }
}

/** Writes the template beside its final name and renames it there, so a reader never sees half of one. */
const writeTemplate = async (db: PGlite): Promise<void> => {
  try {
    const file = templateFile()
    Fs.mkdirSync(Path.dirname(file), { recursive: true, mode: 0o700 })
    const partial = `${file}.${randomUUID()}.partial`
    Fs.writeFileSync(partial, Buffer.from(await (await db.dumpDataDir("gzip")).arrayBuffer()), { mode: 0o600 })
    Fs.renameSync(partial, file)
  } catch {
    // No cache: the next first start runs initdb too.
  }
}

/**
 * Opens PGlite on `dataDir`: an existing database as it is; an empty directory from the template
 * when there is one, else through initdb, after which the template is made.
 */
export const openPGlite = async (dataDir: string, startParams: ReadonlyArray<string>): Promise<PGlite> => {
  // Imported here, not with the module: a server on PostgreSQL never holds PGlite's code.
  const { PGlite } = await import("@electric-sql/pglite")
  if (!isEmpty(dataDir)) return PGlite.create({ dataDir, startParams: [...startParams] })
  const template = readTemplate()
  if (template !== undefined) {
    try {
      return await PGlite.create({ dataDir, startParams: [...startParams], loadDataDir: template })
    } catch {
      // A template PGlite cannot read: what it unpacked goes, and initdb runs (and replaces it).
      Fs.rmSync(dataDir, { recursive: true, force: true })
      Fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    }
  }
  const db = await PGlite.create({ dataDir, startParams: [...startParams] })
  await writeTemplate(db)
  return db
}
