import { Either, Schema } from "effect"
import { quote } from "./Echo.js"
import { Violation } from "./Errors.js"

/**
 * The CSV form of POST /posts/bulk: a header row naming the columns (caption and accounts
 * required; scheduled_at, media_urls and idempotency_key optional, in any order), then one post
 * per line. Fields follow RFC 4180 (double quotes around a field that holds a comma, a quote or a
 * line break; a quote inside is doubled). Inside the accounts and media_urls cells a pipe
 * separates values. The rows come out in the JSON form's shape, so both forms decode through
 * BulkBody and are refused with the same messages.
 */
export const bulkCsvColumns = ["caption", "accounts", "scheduled_at", "media_urls", "idempotency_key"] as const
type Column = typeof bulkCsvColumns[number]

const requiredColumns: ReadonlyArray<Column> = ["caption", "accounts"]
const listColumns: ReadonlyArray<Column> = ["accounts", "media_urls"]

/** The CSV could not be read as rows; each violation names the line (and column) at fault. */
export class BulkCsvInvalid extends Schema.TaggedError<BulkCsvInvalid>()("BulkCsvInvalid", {
  violations: Schema.Array(Violation)
}) {
  override get message(): string {
    return `unreadable CSV: ${this.violations.map((v) => `${v.field}: ${v.message}`).join("; ")}`
  }
}

/** One record of fields, with the 1-based line it starts on (a quoted field may span lines). */
interface CsvRecord {
  readonly line: number
  readonly fields: ReadonlyArray<string>
}

const refuse = (field: string, message: string) => ({ field, account: null, message })

/** RFC 4180 records; fails on a quote left open or text after a closing quote. */
const records = (text: string): Either.Either<ReadonlyArray<CsvRecord>, BulkCsvInvalid> => {
  const out: Array<CsvRecord> = []
  let fields: Array<string> = []
  let field = ""
  let line = 1
  let start = 1
  let quoted = false
  let afterQuote = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quoted) {
      if (char === "\"") {
        if (text[i + 1] === "\"") {
          field += "\""
          i++
        } else {
          quoted = false
          afterQuote = true
        }
      } else {
        if (char === "\n") line++
        field += char
      }
      continue
    }
    if (char === ",") {
      fields.push(field)
      field = ""
      afterQuote = false
    } else if (char === "\n" || (char === "\r" && text[i + 1] === "\n")) {
      if (char === "\r") i++
      fields.push(field)
      out.push({ line: start, fields })
      fields = []
      field = ""
      afterQuote = false
      line++
      start = line
    } else if (afterQuote) {
      return Either.left(new BulkCsvInvalid({
        violations: [refuse(`line ${line}`, "text after a closing quote; double a quote inside a quoted field (\"\")")]
      }))
    } else if (char === "\"" && field === "") {
      quoted = true
    } else {
      field += char
    }
  }
  if (quoted) {
    return Either.left(new BulkCsvInvalid({ violations: [refuse(`line ${start}`, "a quoted field is never closed")] }))
  }
  if (field !== "" || fields.length > 0 || afterQuote) {
    fields.push(field)
    out.push({ line: start, fields })
  }
  // Blank lines (a trailing newline, spacing between rows) carry no post.
  return Either.right(out.filter((record) => !(record.fields.length === 1 && record.fields[0]!.trim() === "")))
}

const isColumn = (name: string): name is Column => (bulkCsvColumns as ReadonlyArray<string>).includes(name)

const header = (record: CsvRecord): Either.Either<ReadonlyArray<Column>, BulkCsvInvalid> => {
  const names = record.fields.map((name) => name.trim().toLowerCase())
  const violations = [
    ...names.flatMap((name, index) =>
      !isColumn(name)
        ? [refuse(`header column ${index + 1}`, `unknown column ${quote(name)}; the columns are ${bulkCsvColumns.join(", ")}`)]
        : names.indexOf(name) !== index
        ? [refuse(`header column ${index + 1}`, `column ${name} appears twice`)]
        : []
    ),
    ...requiredColumns.filter((column) => !names.includes(column)).map((column) =>
      refuse("header", `the ${column} column is required (header: caption,accounts[,scheduled_at,media_urls,idempotency_key])`)
    )
  ]
  return violations.length > 0 ? Either.left(new BulkCsvInvalid({ violations })) : Either.right(names as Array<Column>)
}

const splitList = (cell: string): ReadonlyArray<string> =>
  cell.split("|").map((value) => value.trim()).filter((value) => value !== "")

/** A row in the JSON form's shape; empty optional cells are left out rather than sent as "". */
const toRow = (columns: ReadonlyArray<Column>, record: CsvRecord) => {
  const row: { [key in Column]?: string | ReadonlyArray<string> } = {}
  columns.forEach((column, index) => {
    const cell = record.fields[index] ?? ""
    if (column === "caption") row.caption = cell
    else if (listColumns.includes(column)) {
      if (column === "accounts" || cell.trim() !== "") row[column] = splitList(cell)
    } else if (cell.trim() !== "") row[column] = cell.trim()
  })
  return row
}

/** A row of a bulk CSV in the JSON form's shape, with the 1-based line it starts on. */
export interface BulkCsvRow {
  readonly line: number
  readonly row: unknown
}

/**
 * The rows of a bulk CSV with their line numbers (the CLI's import names each row by its line).
 * Every malformed line is reported at once, each by its line number.
 */
export const parseBulkCsvLines = (text: string): Either.Either<ReadonlyArray<BulkCsvRow>, BulkCsvInvalid> =>
  Either.flatMap(records(text.replace(/^\uFEFF/, "")), (all) => {
    const [first, ...rest] = all
    if (first === undefined) {
      return Either.left(new BulkCsvInvalid({ violations: [refuse("header", "the CSV is empty; it needs a header row and 1 to 100 rows")] }))
    }
    return Either.flatMap(header(first), (columns) => {
      const violations = rest.flatMap((record) =>
        record.fields.length === columns.length ? [] : [
          refuse(`line ${record.line}`, `has ${record.fields.length} fields; the header has ${columns.length}`)
        ]
      )
      return violations.length > 0
        ? Either.left(new BulkCsvInvalid({ violations }))
        : Either.right(rest.map((record) => ({ line: record.line, row: toRow(columns, record) })))
    })
  })

/** The rows of a bulk CSV, ready to decode as BulkBody's rows. */
export const parseBulkCsv = (text: string): Either.Either<ReadonlyArray<unknown>, BulkCsvInvalid> =>
  Either.map(parseBulkCsvLines(text), (rows) => rows.map(({ row }) => row))
