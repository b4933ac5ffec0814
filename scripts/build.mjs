// `npm run build`, and what `npm start` runs first: runs the `build` script of every workspace that
// has one and is stale, dependencies first. A workspace is stale when it has no dist/ yet or a file
// of its own (tests, node_modules and outputs aside) is newer than its last build, the time of its
// dist/ directory (set after each build: tsc leaves dist/ alone when only package.json changed). When
// nothing changed this only reads file times, so `npm start` stays fast. Concurrent builds (a test
// packing the packages while another starts Herald) wait for each other on a lock directory.
// `node scripts/build.mjs <package name>...` builds only those (the dashboard's browser tests).
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"

const root = resolve(import.meta.dirname, "..")
const ignored = new Set(["node_modules", "dist", "build", "test", "coverage"])

/** The newest modification time under `path`, ignored names and dot files aside (0 when empty). */
const newest = (path) => {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path)) {
    if (entry.startsWith(".") || ignored.has(entry)) continue
    latest = Math.max(latest, newest(join(path, entry)))
  }
  return latest
}

/** The workspaces with a build script, each after the workspaces it depends on. */
const workspaces = () => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  const found = new Map()
  for (const pattern of manifest.workspaces) {
    // Only `dir/*` and plain directories appear in the root manifest.
    const dirs = pattern.endsWith("/*")
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => join(pattern.slice(0, -2), entry.name))
      : [pattern]
    for (const dir of dirs) {
      const file = join(root, dir, "package.json")
      if (statSync(file, { throwIfNoEntry: false }) === undefined) continue
      const pkg = JSON.parse(readFileSync(file, "utf8"))
      found.set(pkg.name, { dir: join(root, dir), pkg })
    }
  }
  const ordered = []
  const visit = (name, seen) => {
    const workspace = found.get(name)
    if (workspace === undefined || ordered.includes(workspace) || seen.has(name)) return
    seen.add(name)
    for (const dependency of Object.keys(workspace.pkg.dependencies ?? {})) visit(dependency, seen)
    ordered.push(workspace)
  }
  for (const name of found.keys()) visit(name, new Set())
  return ordered.filter(({ pkg }) => pkg.scripts?.build !== undefined)
}

const built = ({ dir }) => statSync(join(dir, "dist"), { throwIfNoEntry: false })?.mtimeMs
const stale = (workspace) => {
  const at = built(workspace)
  return at === undefined || newest(workspace.dir) > at
}

// Under npm (npm start, npm run build, prepack) the same npm runs the workspaces' scripts.
const npm = process.env.npm_execpath === undefined ? ["npm"] : [process.execPath, process.env.npm_execpath]

const lock = join(root, "node_modules", ".herald-build-lock")
const acquire = async () => {
  for (;;) {
    try {
      mkdirSync(lock)
      return
    } catch (error) {
      if (error.code !== "EEXIST") throw error
      // A build killed half way leaves its lock: no build takes half an hour (a full one took six
      // minutes on a loaded 2-core machine).
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()
      if (Date.now() - since > 1_800_000) rmSync(lock, { recursive: true, force: true })
      else await sleep(200)
    }
  }
}

// The server that `npm start` runs: packages/app's compiled bin.js and what it imports, bundled by
// esbuild into dist/herald.js (beside bin.js, so its `../package.json` and its createRequire calls
// resolve as bin.js's do) and dist/herald-chunks/ (what is imported dynamically, and the code it
// shares). Loading one file instead of several hundred modules is most of a restart's CPU
// (bench/README.md, Footprint).
// Left out: PGlite (its wasm and data files are found next to its module), the ffprobe binary's
// package (found by its own require) and the SQLite drivers (native). Stale when any workspace's
// dist/, or this script, is newer than the bundle.
const app = join(root, "packages", "app")
const bundle = join(app, "dist", "herald.js")
const bundleStale = () => {
  const at = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs
  return at === undefined || statSync(import.meta.filename).mtimeMs > at || workspaces().some((workspace) => (built(workspace) ?? 0) > at)
}
const bundleServer = async () => {
  const { build } = await import("esbuild")
  rmSync(join(app, "dist", "herald-chunks"), { recursive: true, force: true })
  await build({
    entryPoints: { herald: join(app, "dist", "bin.js") },
    outdir: join(app, "dist"),
    chunkNames: "herald-chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["@electric-sql/pglite", "@electric-sql/pglite/*", "@electric-sql/pglite-socket", "@ffprobe-installer/*", "better-sqlite3", "sqlite3"],
    // Bundled CommonJS modules call require() for node's built-ins; an ES module has none of its own.
    banner: { js: "import { createRequire as heraldCreateRequire } from \"node:module\"; const require = heraldCreateRequire(import.meta.url);" },
    logLevel: "warning",
    plugins: [standInsPlugin]
  })
}

// Modules that libraries load at start through their index, for features Herald never uses: in the
// bundle, each import below (from the importer named) resolves to a stand-in that says so if it is
// ever called. Loading them cost every start their parse and the memory they hold (bench/README.md,
// Footprint).
const leftOut = (what) => `() => { throw new Error(${JSON.stringify(`Herald's bundle leaves out ${what}`)}) }`
const standIns = [
  {
    // @effect/platform's index re-exports HttpApiScalar, whose module holds Scalar's 3 MB script;
    // only the reference page's module, imported on the first request for the page, uses it (by its
    // own path, @effect/platform/HttpApiScalar, which the bundle keeps in that page's chunk).
    path: /^\.\/HttpApiScalar\.js$/,
    importer: /@effect[\\/]platform[\\/]dist[\\/]esm[\\/]index\.js$/,
    contents: `export const layer = ${leftOut("the index's HttpApiScalar: import @effect/platform/HttpApiScalar")}`
  },
  {
    // @effect/platform-node's HTTP client on undici (NodeHttpClient.layerUndici). Herald calls out
    // through OutboundGuard, which imports undici itself on its first request.
    path: /^undici$/,
    importer: /@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]Undici\.js$/,
    contents: `const left = ${leftOut("@effect/platform-node's undici client")}
export class Agent { constructor() { left() } }
export const getGlobalDispatcher = left
export default {}`
  },
  {
    // WebSockets (an upgrade the app accepts, NodeSocket, NodeSocketServer): no Herald route upgrades.
    path: /^ws$/,
    importer: /@effect[\\/]platform-node(-shared)?[\\/]dist[\\/]esm[\\/]/,
    contents: `const left = ${leftOut("WebSockets (ws)")}
export class WebSocket { constructor() { left() } }
export class WebSocketServer { constructor() { left() } }
export default {}`
  },
  {
    // @effect/cli's options read from a YAML, TOML or INI file (Options.fileParse): Herald's CLI has none.
    path: /^(yaml|toml|ini)$/,
    importer: /@effect[\\/]cli[\\/]dist[\\/]esm[\\/]internal[\\/]files\.js$/,
    contents: `export const parse = ${leftOut("@effect/cli's configuration files")}`
  }
]
const standInsPlugin = {
  name: "herald-stand-ins",
  setup(build) {
    standIns.forEach((standIn, index) => {
      build.onResolve({ filter: standIn.path }, ({ importer }) =>
        standIn.importer.test(importer) ? { path: String(index), namespace: "herald-stand-in" } : undefined)
    })
    build.onLoad({ filter: /.*/, namespace: "herald-stand-in" }, ({ path }) => ({ contents: standIns[Number(path)].contents, loader: "js" }))
  }
}

const named = process.argv.slice(2)
const pending = workspaces().filter((workspace) => named.length === 0 || named.includes(workspace.pkg.name)).filter(stale)
if (pending.length > 0) {
  await acquire()
  try {
    // Another build may have done the work while this one waited.
    for (const workspace of pending.filter(stale)) {
      console.error(`build: ${workspace.pkg.name}`)
      // The builds' output goes to stderr: run by prepack under `npm pack --json`, stdout is npm's JSON.
      const run = spawnSync(npm[0], [...npm.slice(1), "run", "build", "--silent", "--workspace", workspace.pkg.name], {
        cwd: root,
        stdio: ["inherit", 2, "inherit"]
      })
      if (run.status !== 0) {
        process.exitCode = run.status ?? 1
        break
      }
      const now = new Date()
      if (built(workspace) !== undefined) utimesSync(join(workspace.dir, "dist"), now, now)
    }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
if (process.exitCode === undefined && (named.length === 0 || named.includes("@herald/app")) && bundleStale()) {
  await acquire()
  try {
    if (bundleStale()) {
      console.error("build: packages/app/dist/herald.js (bundle)")
      await bundleServer()
      // Its chunks' directory, written after it, moved dist/'s time past it.
      const now = new Date()
      utimesSync(bundle, now, now)
    }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
