import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // One worker per core (vitest's default leaves one core idle, so a 2-core machine ran one file
    // at a time). Files share nothing: each has its own databases, ports and temporary directories.
    maxWorkers: "100%",
    // A worker runs one package's files one after another, loading effect and the packages once
    // rather than in a new process per file (most of a file's start-up), except core's (`isolate`
    // per project, vitest.workspace.ts). So a test file leaves no global state behind: what it
    // changes (process.env, spies) it puts back.
    // Once per run: the initialised embedded database that tests copy (embeddedDataDir).
    globalSetup: ["./packages/storage-postgres/test/EmbeddedSnapshotSetup.ts"]
  }
})
