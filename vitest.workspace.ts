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

const project = (name: string, root: string) => ({
  extends: "./vitest.shared.ts",
  test: {
    name,
    root,
    include: ["test/**/*.test.ts"],
    // A package's files share one process and module graph (vitest.config.ts): loading effect and
    // the packages once per worker rather than once per file is most of the suite's time.
    pool: "forks" as const,
    isolate: false
  }
})

export default [
  ...packages.map((name) => project(name, `./packages/${name}`)),
  ...examples.map((name) => project(`example-${name}`, `./examples/${name}`))
]
