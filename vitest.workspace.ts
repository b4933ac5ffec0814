// The test projects: one per package and one per example. Read by vitest.config.ts (the fast suite,
// `npx vitest run`) and vitest.slow.config.ts (the slow end-to-end files, `npm run test:slow`);
// `npm test` runs both (scripts/test.mjs). vitest 3.2 deprecates loading this file directly in
// favour of `test.projects`.
export const packages = [
  "core",
  "storage-postgres",
  "outbound",
  "media",
  "publishers",
  "webhooks",
  "classifiers",
  "http-api",
  "mcp",
  "app",
  "dashboard"
] as const

/** The runnable examples (examples/*), each a workspace whose test runs it as a smoke test. */
export const examples = [
  "embed-express",
  "webhook-receiver",
  "effect-client",
  "openapi-fetch",
  "mcp-agent",
  "custom-guardrail",
  "custom-publisher"
] as const

/**
 * The slow set: files (or folders, ending in "/") that `npx vitest run` leaves to `npm run
 * test:slow`, each with the reason its time is its own and cannot be cut without testing less.
 * Paths from the repository's root. Everything else is the fast suite.
 */
export const slow: Readonly<Record<string, string>> = {
  "packages/app/test/install/PackedInstall.test.ts": "npm pack of every package, npm install of the tarballs into a fresh project and tsc over it: what a user's install does",
  "packages/app/test/install/BareBox.test.ts": "README's `npm start` in a bare PATH: the full build of every package and the dashboard, then a real server process",
  "packages/app/test/dashboard/Dashboard.test.ts": "drives chromium through the dashboard's pages (builds the dashboard when stale)",
  "packages/app/test/dashboard/AccountsAndInsights.test.ts": "drives chromium through the dashboard's pages",
  "packages/app/test/dashboard/Settings.test.ts": "drives chromium through the dashboard's pages",
  "packages/app/test/dashboard/Operator.test.ts": "drives chromium through the dashboard's pages",
  "packages/app/test/dashboard/MediaAndMetrics.test.ts": "drives chromium through the dashboard's pages",
  "packages/app/test/media/LargeUpload.test.ts": "measures its own process's memory over a 150 MB upload, in a process of its own (measuringMemory)",
  "packages/mcp/test/Inspector.test.ts": "runs the official MCP inspector CLI as a child process against a server",
  "packages/publishers/test/bluesky/BlueskyPds.test.ts": "starts a real atproto PDS (@atproto/pds, SQLite) on loopback",
  "packages/publishers/test/bluesky/PdsOAuth.test.ts": "starts a real atproto PDS (@atproto/pds, SQLite) on loopback",
  "packages/app/test/networks/Bluesky.test.ts": "starts a real atproto PDS (@atproto/pds, SQLite) on loopback",
  "packages/app/test/Quickstart.test.ts": "the quickstart end to end on `herald serve` processes started from the sources (node with tsx as a loader), restarted once",
  "packages/mcp/test/Processes.test.ts": "MCP across `herald serve` processes started from the sources (node with tsx as a loader)",
  "packages/app/test/fuzz/Fuzz.test.ts": "2,000 requests generated from the OpenAPI documents per database (HERALD_FUZZ_RUNS): the number is the test",
  "packages/core/test/LifecycleModelCopilot.test.ts": "1,000 random command sequences (HERALD_PROPERTY_RUNS): the number is the test",
  "packages/core/test/LifecycleModelAutopilot.test.ts": "1,000 random command sequences (HERALD_PROPERTY_RUNS): the number is the test",
  "packages/storage-postgres/test/pglite-template.test.ts": "runs PGlite's initdb twice (a first start without a template, and the fallback from an unreadable one), each about 6 s of CPU",
  ...Object.fromEntries(examples.map((name) => [
    `examples/${name}/`,
    "the example run as a user runs it, in a project (and so a worker and module graph) of its own"
  ]))
}

/**
 * Files that measure their own process's memory, forcing full collections as they go: each runs in
 * a fresh process of its own, since in a shared one the heap other files left makes every forced
 * collection long enough to starve what is measured (a 150 MB upload timed out at 60 s in CI).
 */
const measuringMemory = ["test/media/LargeUpload.test.ts"]

type Project = { readonly name: string; readonly root: string; readonly include?: ReadonlyArray<string>; readonly isolate?: boolean }

const projects: ReadonlyArray<Project> = [
  ...packages.map((name) => ({ name, root: `packages/${name}` })),
  { name: "app-memory", root: "packages/app", include: measuringMemory, isolate: true },
  ...examples.map((name) => ({ name: `example-${name}`, root: `examples/${name}` }))
]

/** The slow set's patterns inside `root`, relative to it. */
const slowIn = (root: string): Array<string> =>
  Object.keys(slow).filter((path) => path.startsWith(`${root}/`)).map((path) => {
    const inside = path.slice(root.length + 1)
    return inside === "" || inside.endsWith("/") ? `${inside}**/*.test.ts` : inside
  })

const project = ({ name, root, include = ["test/**/*.test.ts"], isolate = false }: Project, exclude: ReadonlyArray<string>) => ({
  extends: "./vitest.shared.ts",
  test: {
    name,
    root: root === "." ? "." : `./${root}`,
    include: [...include],
    exclude: ["**/node_modules/**", ...exclude],
    // A package's files share one process and module graph (vitest.config.ts): loading effect and
    // the packages once per worker rather than once per file is most of the suite's time.
    pool: "forks" as const,
    isolate,
    poolOptions: { forks: { isolate } }
  }
})

const isolated = (p: Project) => p.isolate === true

/**
 * The fast suite: every package's files but the slow set, as ONE project. vitest runs projects one
 * after another, each loading the packages anew, so one project per package left a core idle and
 * paid the module graph eleven times; as one project both workers share the whole list.
 */
export const fastProjects = [
  project(
    { name: "fast", root: ".", include: packages.map((name) => `packages/${name}/test/**/*.test.ts`) },
    [...Object.keys(slow).filter((path) => path.startsWith("packages/")), ...measuringMemory.map((path) => `packages/app/${path}`)]
  )
]

/** The slow set: each project's slow files alone (the files measuring memory in their own project). */
export const slowProjects = projects.flatMap((p) => {
  if (isolated(p)) return [project(p, [])]
  const files = slowIn(p.root).filter((pattern) => !(p.name === "app" && measuringMemory.includes(pattern)))
  return files.length === 0 ? [] : [project({ ...p, include: files }, p.name === "app" ? measuringMemory : [])]
})

export default fastProjects
