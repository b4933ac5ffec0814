#!/usr/bin/env node
import * as V8 from "node:v8"
import { holdYoungGeneration } from "./YoungGeneration.js"

// WebAssembly compiled by the baseline compiler only (Liftoff), never optimised: the embedded
// database's 9 MB pglite.wasm is compiled on every start, and optimising its hot functions cost
// more CPU and resident memory than it gave back in query speed (bench/README.md, Footprint).
// Read when a module is compiled, so setting it here, before the server starts, is in time. The
// server process only: createHerald() leaves its host's flags alone.
V8.setFlagsFromString("--liftoff-only")
holdYoungGeneration()

// The CLI is imported only now, after the flags: evaluating Herald's modules is the start's first
// burst of surviving objects, which the young generation must not grow for (YoungGeneration.ts).
const { main } = await import("./Cli.js")
main(process.argv.slice(2))
