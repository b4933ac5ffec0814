import * as Fs from "node:fs"
import { Command, ValidationError } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { CredentialsCipher, StorageLive, migrate } from "@herald/storage-postgres"
import { Console, Effect, Option } from "effect"
import { adminCli } from "./AdminCli.js"
import { CliFailure } from "./CliArgs.js"
import { withCliColours } from "./CliColour.js"
import { group, unknownCommand } from "./CommandTree.js"
import { heraldConfig } from "./Config.js"
import { importCli } from "./CsvImport.js"
import { loadCredentialsKey } from "./Secrets.js"
import { serve, work } from "./Server.js"

const version = (JSON.parse(Fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version

const runMigrations = Effect.gen(function*() {
  const config = yield* heraldConfig
  // The credentials key: a migration may seal values stored in the clear before it.
  const credentialsKey = yield* loadCredentialsKey(config)
  const applied = yield* migrate.pipe(Effect.provide([StorageLive.database(config), CredentialsCipher.layer(credentialsKey)]))
  yield* Console.log(
    applied.length === 0 ? "the schema is up to date" : `applied ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`
  )
})

export const herald = group(
  "herald",
  "Herald, the social posting service. Configured by environment variables: see docs/configuration.md.",
  [
    Command.make("serve", {}, () => serve).pipe(
      Command.withDescription("Start the server (PORT, HOST, HERALD_DATA_DIR, DATABASE_URL, HERALD_PUBLIC_URL, ...).")
    ),
    Command.make("work", {}, () => work).pipe(
      Command.withDescription(
        "Run only the background workers (publishing, metrics, connection checks, webhooks) beside API processes started with " +
          "HERALD_WORKERS=false, on a shared PostgreSQL (DATABASE_URL)."
      )
    ),
    Command.make("migrate", {}, () => runMigrations).pipe(Command.withDescription("Bring the database schema up to date and exit.")),
    adminCli,
    importCli
  ]
)

/**
 * What went wrong, in one line: an error's own message, or its cause's when it has none (the
 * HTTP server's ServeError carries only the listen error, e.g. EADDRINUSE).
 */
export const describeFailure = (error: unknown): string => {
  if (error instanceof CliFailure) return error.message
  const own = error instanceof Error ? error.message : typeof error === "string" ? error : ""
  const cause = typeof error === "object" && error !== null && "cause" in error && error.cause !== undefined ? describeFailure(error.cause) : ""
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : ""
  return [own, cause].filter((part) => part !== "").join(": ") || tag || String(error)
}

/** Runs one command line (without node and the script); the effect's value is the exit code. */
export const runCli = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  withCliColours(Option.match(unknownCommand(herald, argv), {
    onSome: (message) => Effect.as(Console.error(`herald: ${message}`), 2),
    onNone: () => runParsed(argv)
  }))

const runParsed = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  Command.run(herald, { name: "herald", version })(["node", "herald", ...argv]).pipe(
    Effect.as(0),
    Effect.catchAll((error: unknown) =>
      // @effect/cli has printed its own usage errors already.
      ValidationError.isValidationError(error)
        ? Effect.succeed(2)
        : Effect.as(Console.error(`herald: ${describeFailure(error)}`), error instanceof CliFailure ? error.exitCode : 1)
    ),
    Effect.catchAllDefect((defect) => Effect.as(Console.error("herald: internal error", defect), 1)),
    Effect.provide(NodeContext.layer)
  )

