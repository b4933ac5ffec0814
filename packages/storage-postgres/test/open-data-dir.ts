// Run by pglite.test.ts as a second process: tries to open a data directory another process holds.
import { Effect, Layer } from "effect"
import * as PgLiteServer from "../src/PgLiteServer.js"

const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(PgLiteServer.layer({ dataDir: process.argv[2]! }))))
if (exit._tag === "Failure") {
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : exit.cause
  process.stderr.write(`${failure instanceof Error ? failure.message : String(failure)}\n`)
  process.exit(3)
}
