import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { runCli } from "./Cli.js"

// runMain interrupts on SIGINT/SIGTERM, so the server closes its database and releases the data dir.
NodeRuntime.runMain(
  Effect.flatMap(runCli(process.argv.slice(2)), (code) => Effect.sync(() => void (process.exitCode = code))),
  { disableErrorReporting: true }
)
