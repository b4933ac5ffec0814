import * as Fs from "node:fs"

const apiDoc = new URL("../../../../docs/api.md", import.meta.url)

/** The backticked codes in one column of the markdown table whose header row matches `header`. */
const codesInTable = (lines: ReadonlyArray<string>, header: RegExp, column: number) => {
  const start = lines.findIndex((line) => header.test(line))
  if (start === -1) throw new Error(`docs/api.md has no table headed ${header}`)
  const rows = lines.slice(start + 2)
  const table = rows.slice(0, rows.findIndex((line) => !line.startsWith("|")))
  return table.flatMap((row) => [...(row.split("|")[column + 1] ?? "").matchAll(/`([a-z0-9_]+)`/g)].map((match) => match[1]!))
}

/**
 * Every error code a client may receive, as docs/api.md lists them: the code column of the Errors
 * table and of the 401 table under Keys. A reply with a code missing here is a bug, in the server or
 * in the docs.
 */
export const documentedCodes = (): ReadonlySet<string> => {
  const lines = Fs.readFileSync(apiDoc, "utf8").split("\n")
  const codes = [
    ...codesInTable(lines, /^\| status \| code \| when \|/, 1),
    ...codesInTable(lines, /^\| 401 code \| when \|/, 0)
  ]
  if (codes.length < 10) throw new Error(`docs/api.md lists only ${codes.length} error codes: the tables changed shape`)
  return new Set(codes)
}
