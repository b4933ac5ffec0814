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
  "app"
] as const

export default packages.map((name) => ({
  extends: "./vitest.shared.ts",
  test: {
    name,
    root: `./packages/${name}`,
    include: ["test/**/*.test.ts"],
    // core's files run each in a fresh module graph: after a file that shares a layer across its
    // tests (@effect/vitest's `layer`, InMemoryStores.test.ts), a later file's TestClock-driven
    // tests in the same worker read times they never set (Authenticate, UploadMedia, Connections).
    // The other packages' files pass sharing one graph, and it saves most of their start-up.
    isolate: name === "core"
  }
}))
