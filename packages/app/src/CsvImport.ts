import * as Fs from "node:fs"
import { Args, Command } from "@effect/cli"
import { type BulkCsvRow, parseBulkCsvLines } from "@herald/core"
import { Array as Arr, Console, Duration, Effect, Either, Option } from "effect"
import { CliFailure, textOption, usageError } from "./CliArgs.js"
import { connect, type Connection, connectionOptions, keyOption, refusal, replyBody, tokenOption } from "./CliConnection.js"
import { reportProgress } from "./ProgressBar.js"

/** POST /posts/bulk takes at most this many rows; a longer file goes in several requests. */
const batchSize = 100

/** A 429 (the key's rate limit) is waited out this many times per batch before the import stops. */
const rateLimitRetries = 5

interface RowResult {
  readonly row: number
  readonly code: string
  readonly id: string | null
  readonly status: string | null
  readonly message: string
}

/** One line of the summary: the file's line, then what became of its row. */
export const describeRow = (line: number, result: RowResult): string =>
  result.id === null
    ? `line ${line}: ${result.code}: ${result.message.replaceAll(`rows[${result.row}].`, "")}`
    : `line ${line}: ${result.code} ${result.id} (${result.status})`

const sendBatch = (connection: Connection, batch: ReadonlyArray<BulkCsvRow>, attempt = 0): Effect.Effect<ReadonlyArray<RowResult>, CliFailure> =>
  Effect.gen(function*() {
    const reply = yield* connection.send({ method: "POST", path: "/api/v1/posts/bulk", body: { rows: batch.map(({ row }) => row) } })
    if (reply.status === 429 && attempt < rateLimitRetries) {
      yield* Effect.sleep(Duration.seconds(reply.retryAfter._tag === "Some" ? reply.retryAfter.value : 1))
      return yield* sendBatch(connection, batch, attempt + 1)
    }
    if (reply.status !== 200) {
      return yield* Effect.fail(
        new CliFailure(`${refusal(reply).message} (stopped at line ${batch[0]!.line}; the rows before it were imported)`, 1)
      )
    }
    return (replyBody(reply) as { readonly results: ReadonlyArray<RowResult> }).results
  })

/**
 * Reads a bulk CSV (the columns of POST /posts/bulk's CSV form, any number of rows), sends it in
 * batches of 100, draws a progress bar on stderr and prints one line per row on stdout, then the
 * totals. Exit 1 when any row failed, so a script notices; the others are created all the same
 * (an idempotency_key column makes a second run skip them).
 */
export const importCsv = (file: string, connection: Connection) =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => Fs.readFileSync(file, "utf8"),
      catch: (error) => new CliFailure(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, 1)
    })
    const rows = yield* Either.mapLeft(parseBulkCsvLines(text), (invalid) => new CliFailure(`${file}: ${invalid.message}`, 1))
    if (rows.length === 0) return yield* Effect.fail(new CliFailure(`${file}: no rows under the header`, 1))
    let done = 0
    let failed = 0
    yield* reportProgress(0, rows.length)
    const lines: Array<string> = []
    for (const batch of Arr.chunksOf(rows, batchSize)) {
      const results = yield* sendBatch(connection, batch)
      for (const result of results) {
        if (result.id === null) failed++
        lines.push(describeRow(batch[result.row]!.line, result))
      }
      done += batch.length
      yield* reportProgress(done, rows.length)
    }
    yield* Console.log([...lines, `${rows.length - failed} created, ${failed} failed, ${rows.length} rows`].join("\n"))
    if (failed > 0) return yield* Effect.fail(new CliFailure(`${failed} of ${rows.length} rows failed; see the lines above`, 1))
  })

export const importCli = Command.make(
  "import",
  {
    file: Args.file({ name: "file.csv", exists: "yes" }).pipe(
      Args.withDescription("header caption,accounts[,scheduled_at,media_urls,idempotency_key]; | separates values inside a cell")
    ),
    connection: connectionOptions,
    key: keyOption,
    project: textOption("project", "import as this project's operator, with the admin token (--token) in place of a key (docs/api.md, Herald-Project)"),
    token: tokenOption
  },
  (input) => {
    if (Option.isSome(input.project) && Option.isSome(input.key)) {
      return usageError("--project goes with the admin token, not --key: a key already has its project")
    }
    return Option.match(input.project, {
      onNone: () =>
        Effect.flatMap(
          connect({ ...input.connection, project: Option.none() }, { option: input.key, env: "HERALD_API_KEY", credential: "human_key", flag: "--key" }),
          (connection) => importCsv(input.file, connection)
        ),
      onSome: (project) =>
        Effect.flatMap(
          connect({ ...input.connection, project: Option.some(project) }, { option: input.token, env: "HERALD_ADMIN_TOKEN", credential: "admin_token", flag: "--token" }),
          // Every call of the import carries the header: the admin token acts on that project only with it.
          (connection) => importCsv(input.file, { ...connection, send: (call) => connection.send({ ...call, headers: { "herald-project": project } }) })
        )
    })
  }
).pipe(Command.withDescription(
  "Create posts from a CSV file through the public API (POST /api/v1/posts/bulk), with a progress bar and one line per row; " +
    "with --project, as that project's operator (the admin token)."
))
