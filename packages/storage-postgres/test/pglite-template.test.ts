import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { openPGlite, templateFile } from "../src/PgLiteTemplate.js"

// Each test has a cache directory of its own (XDG_CACHE_HOME), so it starts with no template.
const made: Array<string> = []
const tempDir = (prefix: string) => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))
  made.push(dir)
  return dir
}
const templates = (cache: string) => Fs.readdirSync(Path.join(cache, "herald")).filter((name) => name.endsWith("-initdb.tar.gz"))
const tables = async (db: PGlite) =>
  (await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'")).rows.map(({ name }) => name)

describe("the embedded database's initdb template", () => {
  let cache = ""
  const savedCache = process.env.XDG_CACHE_HOME
  beforeEach(() => {
    cache = tempDir("herald-cache-")
    process.env.XDG_CACHE_HOME = cache
  })
  afterEach(() => {
    for (const dir of made.splice(0)) Fs.rmSync(dir, { recursive: true, force: true })
    if (savedCache === undefined) delete process.env.XDG_CACHE_HOME
    else process.env.XDG_CACHE_HOME = savedCache
  })

  it("is made by the first start that finds none, and an empty data directory is then unpacked from it", async () => {
    const first = await openPGlite(tempDir("herald-initdb-"), PGlite.defaultStartParams)
    // What the first database holds after its start is not in the template: it is initdb's output.
    await first.exec("CREATE TABLE after_start (id int)")
    await first.close()
    expect(templates(cache)).toHaveLength(1)

    // Marked, the template shows whether a start used it: a table only it has. (Made from the
    // template itself rather than by a second initdb, the slow part of a start.)
    const marked = await PGlite.create({ dataDir: tempDir("herald-marked-"), loadDataDir: new Blob([Fs.readFileSync(templateFile())]) })
    await marked.exec("CREATE TABLE from_template (id int)")
    Fs.writeFileSync(Path.join(cache, "herald", templates(cache)[0]!), Buffer.from(await (await marked.dumpDataDir("gzip")).arrayBuffer()))
    await marked.close()

    const second = await openPGlite(tempDir("herald-from-template-"), PGlite.defaultStartParams)
    expect(await tables(second)).toEqual(["from_template"])
    await second.close()
  }, 180_000)

  it("that PGlite cannot read is replaced: the start runs initdb instead", async () => {
    Fs.mkdirSync(Path.join(cache, "herald"), { recursive: true })
    Fs.writeFileSync(templateFile(), "not a tarball")
    const [name] = templates(cache)

    const db = await openPGlite(tempDir("herald-fallback-"), PGlite.defaultStartParams)
    expect(await tables(db)).toEqual([])
    await db.close()
    expect(Fs.statSync(Path.join(cache, "herald", name!)).size).toBeGreaterThan(1000)
  }, 180_000)
})
