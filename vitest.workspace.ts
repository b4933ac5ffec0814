// The test projects: one per package. Read by vitest.config.ts (vitest 3.2 deprecates
// loading this file directly in favour of `test.projects`).
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
 * Files that measure their own process's memory, forcing full collections as they go: each runs in
 * a fresh process of its own, since in a shared one the heap other files left makes every forced
 * collection long enough to starve what is measured (a 150 MB upload timed out at 60 s in CI).
 */
const measuringMemory = ["test/media/LargeUpload.test.ts"]

const project = (
  name: string,
  root: string,
  { include = ["test/**/*.test.ts"], exclude = [], isolate = false }: { include?: Array<string>; exclude?: ReadonlyArray<string>; isolate?: boolean } = {}
) => ({
  extends: "./vitest.shared.ts",
  test: {
    name,
    root,
    include,
    exclude: ["**/node_modules/**", ...exclude],
    // A package's files share one process and module graph (vitest.config.ts): loading effect and
    // the packages once per worker rather than once per file is most of the suite's time.
    pool: "forks" as const,
    isolate,
    poolOptions: { forks: { isolate } }
  }
})

export default [
  ...packages.map((name) => project(name, `./packages/${name}`, { exclude: name === "app" ? measuringMemory : [] })),
  project("app-memory", "./packages/app", { include: measuringMemory, isolate: true }),
  ...examples.map((name) => project(`example-${name}`, `./examples/${name}`))
]
