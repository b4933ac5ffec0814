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

export default packages.map((name) => ({
  extends: "./vitest.shared.ts",
  test: {
    name,
    root: `./packages/${name}`,
    include: ["test/**/*.test.ts"],
    // A package's files share one process and module graph (vitest.config.ts): loading effect and
    // the packages once per worker rather than once per file is most of the suite's time.
    pool: "forks" as const,
    isolate: false
  }
}))
