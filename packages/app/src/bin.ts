#!/usr/bin/env node
import { HttpMiddleware } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { runCli } from "./Cli.js"

// runMain interrupts on SIGINT/SIGTERM, so the server closes its database and releases the data dir.
// No trace exporter is configured, so spans would be recorded for nobody, at a cost on every
// request (bench/README.md, HTTP: `traced` and `inSpan`); an embedding host (createHerald) keeps
// its own tracer.
// The HTTP server's own tracing middleware does not look at the tracer: it is turned off apart.
NodeRuntime.runMain(
  Effect.flatMap(runCli(process.argv.slice(2)), (code) => Effect.sync(() => void (process.exitCode = code))).pipe(
    Effect.withTracerEnabled(false),
    HttpMiddleware.withTracerDisabledWhenEffect(() => true)
  ),
  { disableErrorReporting: true }
)
