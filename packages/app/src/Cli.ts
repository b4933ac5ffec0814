import { StorageLive, migrate } from "@herald/storage-postgres"
import { Console, Effect, Either, Option } from "effect"
import { adminRequest, adminUsage, type AdminRequest } from "./AdminCli.js"
import { readCredentials } from "./Bootstrap.js"
import { type ParsedArgs, parseArgs } from "./CliArgs.js"
import { heraldConfig } from "./Config.js"
import { serve, work } from "./Server.js"

export const usage = `herald: the Herald social posting service

  herald serve      start the server (PORT, HOST, HERALD_DATA_DIR, DATABASE_URL, HERALD_PUBLIC_URL; see docs/configuration.md)
  herald work       run only the background workers (publishing, metrics, webhooks) beside API processes started
                    with HERALD_WORKERS=false, on a shared PostgreSQL (DATABASE_URL)
  herald migrate    bring the database schema up to date and exit
  herald admin ...  manage projects, API keys, social accounts and webhooks through the admin API:

${adminUsage}

Admin options: --server <url> (HERALD_URL, default http://127.0.0.1:$PORT), --token <admin token> (HERALD_ADMIN_TOKEN),
--data-dir <dir> (HERALD_DATA_DIR); the token and project default to the data directory's credentials.json.`

/** A refusal to print without a stack: bad usage (exit 2) or a failed operation (exit 1). */
class CliFailure {
  readonly _tag = "CliFailure"
  constructor(readonly message: string, readonly exitCode: 1 | 2) {}
}

const usageError = (message: string) => Effect.fail(new CliFailure(message, 2))

const call = (server: string, token: string, request: AdminRequest) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(`${server.replace(/\/+$/, "")}/admin/v1${request.path}`, {
        method: request.method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(request.body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) })
      })
      return { status: response.status, text: await response.text() }
    },
    catch: (error) => new CliFailure(`cannot reach Herald at ${server}: ${error instanceof Error ? error.message : String(error)}`, 1)
  })

const admin = (args: ParsedArgs) =>
  Effect.gen(function*() {
    const env = (name: string) => Option.fromNullable(process.env[name]).pipe(Option.filter((value) => value !== ""))
    const flag = (name: string) => Option.fromNullable(args.flags.get(name))
    const dataDir = flag("data-dir").pipe(Option.orElse(() => env("HERALD_DATA_DIR")), Option.getOrElse(() => "./.herald"))
    const credentials = readCredentials(dataDir)
    const request = adminRequest(args, Option.flatMap(credentials, (c) => Option.fromNullable(c.project_id)))
    if (Either.isLeft(request)) return yield* usageError(request.left)
    const server = flag("server").pipe(
      Option.orElse(() => env("HERALD_URL")),
      Option.getOrElse(() => `http://127.0.0.1:${process.env.PORT ?? "8080"}`)
    )
    const token = flag("token").pipe(
      Option.orElse(() => env("HERALD_ADMIN_TOKEN")),
      Option.orElse(() => Option.flatMap(credentials, (c) => Option.fromNullable(c.admin_token)))
    )
    if (Option.isNone(token)) {
      return yield* usageError(`no admin token: pass --token, set HERALD_ADMIN_TOKEN, or keep credentials.json in ${dataDir}`)
    }
    const reply = yield* call(server, token.value, request.right)
    const body = Either.try(() => JSON.parse(reply.text) as unknown).pipe(Either.getOrElse(() => reply.text))
    if (reply.status >= 400) {
      const detail = typeof body === "object" && body !== null && "error" in body ? String(body.error) : reply.text
      return yield* Effect.fail(new CliFailure(`${reply.status}: ${detail}`, 1))
    }
    yield* Console.log(JSON.stringify(body, null, 2))
  })

const runMigrations = Effect.gen(function*() {
  const config = yield* heraldConfig
  const applied = yield* migrate.pipe(Effect.provide(StorageLive.database(config)))
  yield* Console.log(
    applied.length === 0 ? "the schema is up to date" : `applied ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`
  )
})

/** Runs one command line (without node and the script); the effect's value is the exit code. */
export const runCli = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  Effect.gen(function*() {
    const args = parseArgs(argv)
    if (Either.isLeft(args)) return yield* usageError(args.left)
    const [command, ...rest] = args.right.positionals
    const sub = { ...args.right, positionals: rest }
    switch (command) {
      case "serve":
        if (rest.length > 0 || args.right.flags.size > 0) return yield* usageError("serve takes no arguments; configure it with environment variables")
        yield* serve
        return 0
      case "work":
        if (rest.length > 0 || args.right.flags.size > 0) return yield* usageError("work takes no arguments; configure it with environment variables")
        yield* work
        return 0
      case "migrate":
        yield* runMigrations
        return 0
      case "admin":
        yield* admin(sub)
        return 0
      case undefined:
      case "help":
        yield* Console.log(usage)
        return 0
      default:
        return yield* usageError(`unknown command ${JSON.stringify(command)}\n\n${usage}`)
    }
  }).pipe(
    Effect.catchAll((error: unknown) =>
      Effect.as(
        Console.error(`herald: ${error instanceof Error || error instanceof CliFailure ? error.message : String(error)}`),
        error instanceof CliFailure ? error.exitCode : 1
      )
    ),
    Effect.catchAllDefect((defect) => Effect.as(Console.error("herald: internal error", defect), 1))
  )
