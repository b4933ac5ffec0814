import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { parseBulkCsv } from "../src/BulkCsv.js"
import { BulkBody } from "../src/usecases/BulkCreate.js"

const rows = (text: string) => Either.getOrThrow(parseBulkCsv(text))
const violations = (text: string) => Either.match(parseBulkCsv(text), { onLeft: (e) => e.violations, onRight: () => [] })

describe("parseBulkCsv", () => {
  it("reads the required columns with pipe-separated accounts", () => {
    expect(rows("caption,accounts\nHello,x:acme|bluesky:acme\n")).toEqual([
      { caption: "Hello", accounts: ["x:acme", "bluesky:acme"] }
    ])
  })

  it("reads every column in any order, with quoted fields holding commas, quotes and line breaks", () => {
    const text = [
      "idempotency_key,caption,accounts,media_urls,scheduled_at",
      "k1,\"Hi, \"\"friends\"\"\nsecond line\",x:acme,https://a.test/1.png|https://a.test/2.png,2030-01-01T10:00:00Z",
      "k2,Plain,x:acme,,"
    ].join("\r\n")
    expect(rows(text)).toEqual([
      {
        idempotency_key: "k1",
        caption: "Hi, \"friends\"\nsecond line",
        accounts: ["x:acme"],
        media_urls: ["https://a.test/1.png", "https://a.test/2.png"],
        scheduled_at: "2030-01-01T10:00:00Z"
      },
      { idempotency_key: "k2", caption: "Plain", accounts: ["x:acme"] }
    ])
  })

  it("ignores a byte order mark and blank lines, and decodes through BulkBody like JSON rows", () => {
    const parsed = rows("\uFEFFcaption,accounts\n\nHello,acme\n\n")
    expect(Schema.decodeUnknownSync(BulkBody)({ rows: parsed })).toEqual({ rows: [{ caption: "Hello", accounts: ["acme"] }] })
  })

  it("names the line of a row with the wrong number of fields, every one of them", () => {
    expect(violations("caption,accounts\na,b,c\nok,x\nd\n")).toEqual([
      { field: "line 2", account: null, message: "has 3 fields; the header has 2" },
      { field: "line 4", account: null, message: "has 1 fields; the header has 2" }
    ])
  })

  it("refuses unknown, duplicated and missing header columns", () => {
    expect(violations("caption,caption,colour\nx,y,z\n").map((v) => v.field)).toEqual([
      "header column 2",
      "header column 3",
      "header"
    ])
  })

  it("refuses an unclosed quote, text after a closing quote, and an empty body", () => {
    expect(violations("caption,accounts\n\"open,x\n")).toEqual([
      { field: "line 2", account: null, message: "a quoted field is never closed" }
    ])
    expect(violations("caption,accounts\n\"a\"b,x\n")[0]?.field).toBe("line 2")
    expect(violations("")[0]?.field).toBe("header")
  })

  it("keeps an empty caption as sent: the envelope takes the row, and bulkCreate refuses that row alone", () => {
    const parsed = rows("caption,accounts\n,x:acme\n")
    expect(parsed).toEqual([{ caption: "", accounts: ["x:acme"] }])
    expect(Either.isRight(Schema.decodeUnknownEither(BulkBody)({ rows: parsed }))).toBe(true)
  })
})
