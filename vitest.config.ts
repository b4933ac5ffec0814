import { defineConfig } from "vitest/config"
import { sourceFirst } from "./vitest.shared.ts"
import { fastProjects } from "./vitest.workspace.ts"

/** The run's settings around a set of projects: the fast suite here, the slow set in vitest.slow.config.ts. */
export const runConfig = (projects: typeof fastProjects) =>
  defineConfig({
    ...sourceFirst,
    test: {
      projects,
      // One worker per core (vitest's default leaves one core idle, so a 2-core machine ran one file
      // at a time). Files share nothing: each has its own databases, ports and temporary directories.
      maxWorkers: "100%",
      // A worker runs its files one after another in one process and module graph, loading effect
      // and the packages once rather than once per file (most of a file's start-up). vitest sizes its
      // pools from this root config, not the projects', so the setting lives here. A test file
      // therefore leaves no global state behind: what it changes (process.env, spies) it puts back,
      // and vitest.setup.ts undoes what @effect/vitest's `layer` leaves on `it`.
      // Workers compile WebAssembly (PGlite, once per database a file opens) with Liftoff alone, as
      // `herald serve` does (bin.ts): the optimising tier's compile was CPU the suite paid for every
      // database and never got back in tests this short (bench/README.md, "Fast suite").
      poolOptions: { forks: { isolate: false, execArgv: ["--liftoff-only"] } },
      // Once per run: the initialised embedded database that tests copy (embeddedDataDir).
      globalSetup: ["./packages/storage-postgres/test/EmbeddedSnapshotSetup.ts"]
    }
  })

/** `npx vitest run`: the fast suite, without the slow set (vitest.workspace.ts, `slow`). */
export default runConfig(fastProjects)
