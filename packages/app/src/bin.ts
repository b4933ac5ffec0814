#!/usr/bin/env node
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import * as V8 from "node:v8"
import { runCli } from "./Cli.js"

// WebAssembly compiled by the baseline compiler only (Liftoff), never optimised: the embedded
// database's 9 MB pglite.wasm is compiled on every start, and optimising its hot functions cost
// more CPU and resident memory than it gave back in query speed (bench/README.md, Footprint).
// Read when a module is compiled, so setting it here, before the server starts, is in time. The
// server process only: createHerald() leaves its host's flags alone.
V8.setFlagsFromString("--liftoff-only")

// runMain interrupts on SIGINT/SIGTERM, so the server closes its database and releases the data dir.
// The tracer is off unless an OTLP endpoint is configured (Telemetry.ts turns it on): spans would
// be recorded for nobody, at a cost on every request (bench/README.md, HTTP: `traced` and
// `inSpan`); an embedding host (createHerald) keeps its own tracer.
NodeRuntime.runMain(
  Effect.flatMap(runCli(process.argv.slice(2)), (code) => Effect.sync(() => void (process.exitCode = code))).pipe(
    Effect.withTracerEnabled(false)
  ),
  // The logger is Herald's own (Logging.ts: JSON or pretty, from HERALD_LOG_FORMAT), not runMain's.
  { disableErrorReporting: true, disablePrettyLogger: true }
)
