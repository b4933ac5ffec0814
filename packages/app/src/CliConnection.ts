import { Context, Effect, Either, Option } from "effect"
import { readCredentials } from "./Bootstrap.js"
import { CliFailure, textOption, usageError } from "./CliArgs.js"

/** One HTTP call a CLI command makes to a running Herald. */
export interface HeraldCall {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE"
  /** From the server's root: /admin/v1/..., /api/v1/... */
  readonly path: string
  readonly body?: unknown
  /** Further headers (Herald-Project, when the admin token acts as a project's operator). */
  readonly headers?: Readonly<Record<string, string>>
}

export interface HeraldReply {
  readonly status: number
  readonly text: string
  /** Retry-After in seconds, when the reply has one. */
  readonly retryAfter: Option.Option<number>
}

const fetchHerald = (server: string, token: string, call: HeraldCall): Effect.Effect<HeraldReply, CliFailure> =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(`${server.replace(/\/+$/, "")}${call.path}`, {
        method: call.method,
        headers: {
          ...call.headers,
          authorization: `Bearer ${token}`,
          ...(call.body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) })
      })
      const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN)
      return {
        status: response.status,
        text: await response.text(),
        retryAfter: Number.isFinite(retryAfter) ? Option.some(retryAfter) : Option.none()
      }
    },
    catch: (error) => new CliFailure(`cannot reach Herald at ${server}: ${error instanceof Error ? error.message : String(error)}`, 1)
  })

/** How the CLI reaches Herald: fetch, unless a test puts a recorder in its place. */
export class HeraldHttp extends Context.Reference<HeraldHttp>()("HeraldHttp", {
  defaultValue: () => fetchHerald
}) {}

/** Options every command that talks to a running server takes. */
export const connectionOptions = {
  server: textOption("server", "Herald's URL (HERALD_URL; default http://127.0.0.1:$PORT)"),
  dataDir: textOption("data-dir", "where credentials.json is (HERALD_DATA_DIR; default ./.herald)")
}

/** The project option of the admin commands. */
export const projectOption = textOption("project", "the project's id (default: credentials.json's project_id)")

/** The admin token option, which the admin commands add to connectionOptions. */
export const tokenOption = textOption("token", "an admin token (HERALD_ADMIN_TOKEN; default: credentials.json's admin_token)")

/** The API key option of commands that use the public API. */
export const keyOption = textOption("key", "an API key (HERALD_API_KEY; default: credentials.json's human_key)")

interface ConnectionInput {
  readonly server: Option.Option<string>
  readonly dataDir: Option.Option<string>
  readonly project: Option.Option<string>
}

const env = (name: string) => Option.fromNullable(process.env[name]).pipe(Option.filter((value) => value !== ""))

/** A running server, the secret to call it with, and the project a command acts on by default. */
export interface Connection {
  readonly server: string
  readonly secret: string
  /** The project to act on, or a usage error naming how to give one. */
  readonly project: Effect.Effect<string, CliFailure>
  readonly send: (call: HeraldCall) => Effect.Effect<HeraldReply, CliFailure>
}

/**
 * Options first, then the environment, then the data directory's credentials.json (the first
 * start writes it), so a command run beside a development server needs no option at all.
 */
export const connect = (
  input: ConnectionInput,
  secret: { readonly option: Option.Option<string>; readonly env: string; readonly credential: "admin_token" | "human_key"; readonly flag: string }
): Effect.Effect<Connection, CliFailure> =>
  Effect.gen(function*() {
    const dataDir = input.dataDir.pipe(Option.orElse(() => env("HERALD_DATA_DIR")), Option.getOrElse(() => "./.herald"))
    const credentials = readCredentials(dataDir)
    const server = input.server.pipe(
      Option.orElse(() => env("HERALD_URL")),
      Option.getOrElse(() => `http://127.0.0.1:${process.env.PORT ?? "8080"}`)
    )
    const token = secret.option.pipe(
      Option.orElse(() => env(secret.env)),
      Option.orElse(() => Option.flatMap(credentials, (c) => Option.fromNullable(c[secret.credential])))
    )
    if (Option.isNone(token)) {
      return yield* usageError(`no ${secret.flag.replace("--", "")}: pass ${secret.flag}, set ${secret.env}, or keep credentials.json in ${dataDir}`)
    }
    const http = yield* HeraldHttp
    return {
      server,
      secret: token.value,
      project: input.project.pipe(
        Option.orElse(() => Option.flatMap(credentials, (c) => Option.fromNullable(c.project_id))),
        Either.fromOption(() => new CliFailure("which project? pass --project <id> (or keep credentials.json in the data directory)", 2))
      ),
      send: (call) => http(server, token.value, call)
    }
  })

/** The reply's JSON (or its text, when it is not JSON). */
export const replyBody = (reply: HeraldReply): unknown =>
  Either.try(() => JSON.parse(reply.text) as unknown).pipe(Either.getOrElse(() => reply.text))

/** A refusal as `<status>: <error>`, exit 1. */
export const refusal = (reply: HeraldReply): CliFailure => {
  const body = replyBody(reply)
  const detail = typeof body === "object" && body !== null && "error" in body ? String(body.error) : reply.text
  return new CliFailure(`${reply.status}: ${detail}`, 1)
}
