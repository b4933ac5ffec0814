import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"
import { errorCodes, StateConflictCode } from "@herald/core"
import { httpErrorClasses } from "@herald/http-api"
import { Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import * as Sdk from "../src/index.js"
import { HeraldError, heraldErrorClasses, heraldErrorOf, UnexpectedReply } from "../src/index.js"

const apiDoc = Fs.readFileSync(fileURLToPath(new URL("../../../docs/api.md", import.meta.url)), "utf8")

/** docs/api.md's error codes with their status: the Errors table's rows, and the Keys section's table of 401 codes. */
const documented = (): ReadonlyArray<readonly [code: string, status: number]> => {
  const rows: Array<readonly [string, number]> = []
  let inKeysTable = false
  for (const line of apiDoc.split("\n")) {
    if (line.startsWith("| 401 code |")) inKeysTable = true
    else if (!line.startsWith("|")) inKeysTable = false
    const errorRow = /^\| (\d{3}) \| ((?:`[a-z_]+`(?:, )?)+) \|/.exec(line)
    if (errorRow !== null) {
      for (const [, code] of errorRow[2]!.matchAll(/`([a-z_]+)`/g)) rows.push([code!, Number(errorRow[1])])
      continue
    }
    const keyRow = /^\| `([a-z_]+)` \|/.exec(line)
    if (inKeysTable && keyRow !== null) rows.push([keyRow[1]!, 401])
  }
  return rows
}

/** The code literals a reply class's schema declares. */
const replyCodes = (Class: typeof httpErrorClasses[number]): ReadonlyArray<string> => {
  const code = (Class as unknown as Schema.Schema.Any & { fields: { code: Schema.Schema.Any } }).fields.code
  const literals = (ast: SchemaAST.AST): ReadonlyArray<string> =>
    SchemaAST.isLiteral(ast) ? [String(ast.literal)] : SchemaAST.isUnion(ast) ? ast.types.flatMap(literals) : []
  return literals(code.ast)
}

describe("an Error class for every documented code", () => {
  it("docs/api.md's list: each code has an exported class of that code and status, an Error and a HeraldError", () => {
    const codes = documented()
    expect(codes.length).toBeGreaterThan(55)
    for (const [code, status] of codes) {
      const Class = (heraldErrorClasses as Record<string, typeof heraldErrorClasses[keyof typeof heraldErrorClasses] | undefined>)[code]
      expect(Class, code).toBeDefined()
      expect([Class!.code, Class!.status], code).toEqual([code, status])
      // Exported under its tag's name, so `import { PostNotFound } from "@herald/app"` finds it.
      const error = new Class!(`a ${code}`)
      expect((Sdk as Record<string, unknown>)[error._tag], code).toBe(Class)
      expect(error).toBeInstanceOf(Error)
      expect(error).toBeInstanceOf(HeraldError)
      expect([error.code, error.status, error.message, error.name]).toEqual([code, status, `a ${code}`, error._tag])
    }
  })

  it("core's codes (errorCodes, StateConflictCode) and every reply class's codes have a class too", () => {
    const codes = [...Object.values(errorCodes), ...StateConflictCode.literals, ...httpErrorClasses.flatMap(replyCodes)]
    expect(codes.length).toBeGreaterThan(40)
    for (const code of codes) expect(Object.keys(heraldErrorClasses), code).toContain(code)
  })

  it("every class is documented, but the SDK's own two (no reply: status 0)", () => {
    const documentedCodes = new Set(documented().map(([code]) => code))
    const undocumented = Object.keys(heraldErrorClasses).filter((code) => !documentedCodes.has(code))
    expect(undocumented.sort()).toEqual(["herald_unreachable", "unexpected_reply"])
  })

  it("a reply body becomes its class with its details; a code this SDK does not know is an UnexpectedReply naming it", () => {
    const capped = heraldErrorOf({ error: "daily cap reached", code: "daily_cap_reached", retry_after: 30 })
    expect(capped).toBeInstanceOf(Sdk.DailyCapReached)
    expect(capped.details).toEqual({ retry_after: 30 })
    const newer = heraldErrorOf({ error: "something new", code: "brand_new_code" })
    expect(newer).toBeInstanceOf(UnexpectedReply)
    expect(newer.message).toBe("something new (code brand_new_code)")
  })
})
