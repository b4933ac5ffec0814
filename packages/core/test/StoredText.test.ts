import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck } from "effect"
import { fieldPath, quote } from "../src/Echo.js"
import { checkStoredText, foreignText, foreignTextLimit, maxJsonDepth, refusedCharacter, refuseStoredText } from "../src/StoredText.js"

/** `levels` arrays inside one another around `inner`, built without recursion. */
const nested = (levels: number, inner: unknown = "x"): unknown => {
  let value = inner
  for (let level = 0; level < levels; level++) value = [value]
  return value
}

const violations = (value: unknown, root: ReadonlyArray<PropertyKey> = []) => {
  const check = checkStoredText(value, root)
  if (check._tag !== "Checked") throw new Error(`expected the walk to finish, got ${check._tag}`)
  return check.violations.map(({ field, message }) => ({ field, message }))
}

describe("refusedCharacter", () => {
  it.each([
    ["a NUL", "a\u0000b", "contains a NUL character (U+0000)"],
    ["a high surrogate alone", "a\ud800", "contains an unpaired surrogate (U+D800)"],
    ["a low surrogate alone", "\udc00a", "contains an unpaired surrogate (U+DC00)"],
    ["a pair in the wrong order", "\ude00\ud83d", "contains an unpaired surrogate (U+DE00)"],
    ["a pair cut short after a whole one", "😀\ud83d", "contains an unpaired surrogate (U+D83D)"]
  ])("refuses %s", (_, text, message) => {
    expect(refusedCharacter(text)).toBe(message)
  })

  it.each([["plain text", "hello"], ["an emoji (a whole pair)", "ship it 🚀"], ["other control characters", "a\tb\u0001c\u007f"], ["empty", ""]])(
    "accepts %s",
    (_, text) => {
      expect(refusedCharacter(text)).toBeNull()
    }
  )

  it("accepts every well-formed string and refuses it with a NUL put anywhere", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ unit: "grapheme" }), FastCheck.nat(), (text, at) => {
        // Between code points: a NUL inside a surrogate pair would leave its halves unpaired.
        const points = Array.from(text)
        points.splice(at % (points.length + 1), 0, "\u0000")
        return refusedCharacter(text) === null && refusedCharacter(points.join("")) === "contains a NUL character (U+0000)"
      })
    )
  })

  it("refuses a lone surrogate put anywhere in a well-formed string, naming it", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ unit: "grapheme" }), FastCheck.nat(), FastCheck.integer({ min: 0xd800, max: 0xdfff }), (text, at, unit) => {
        const points = Array.from(text)
        points.splice(at % (points.length + 1), 0, String.fromCharCode(unit))
        return refusedCharacter(points.join("")) === `contains an unpaired surrogate (U+${unit.toString(16).toUpperCase()})`
      })
    )
  })
})

describe("checkStoredText", () => {
  it("names every refused string by its path, in document order, keys included", () => {
    const body = {
      caption: "a\u0000b",
      social_accounts: ["x:acme", "x:\ud800"],
      platform_configurations: { x: { thread: ["one", "two", "th\u0000ree"] }, "bad\u0000key": {} },
      is_draft: true,
      limit: 3
    }
    expect(violations(body)).toEqual([
      { field: "caption", message: "contains a NUL character (U+0000)" },
      { field: "social_accounts[1]", message: "contains an unpaired surrogate (U+D800)" },
      { field: "platform_configurations", message: "has a key that contains a NUL character (U+0000)" },
      { field: "platform_configurations.x.thread[2]", message: "contains a NUL character (U+0000)" }
    ])
  })

  it("names fields from a root on, and a value at the root by the root", () => {
    expect(violations({ caption: "\u0000" }, ["rows", 3])).toEqual([{ field: "rows[3].caption", message: "contains a NUL character (U+0000)" }])
    expect(violations("\ud800", ["post_id"])).toEqual([{ field: "post_id", message: "contains an unpaired surrogate (U+D800)" }])
    expect(violations("\u0000")).toEqual([{ field: "body", message: "contains a NUL character (U+0000)" }])
  })

  it("finds nothing in clean values", () => {
    expect(violations({ caption: "ship it 🚀", tags: ["a", "b"], n: 1, ok: null })).toEqual([])
  })

  it(`allows ${maxJsonDepth} levels and stops at the next one, naming the top field it is in`, () => {
    expect(violations({ caption: nested(maxJsonDepth - 1) })).toEqual([])
    expect(checkStoredText({ caption: nested(maxJsonDepth) })).toEqual({ _tag: "TooDeep", field: "caption" })
    expect(checkStoredText(nested(maxJsonDepth + 1), ["rows", 0])).toEqual({ _tag: "TooDeep", field: "rows[0][0]" })
  })

  it("walks a value nested far beyond any stack without recursing", () => {
    expect(checkStoredText({ is_draft: nested(1_000_000) })).toEqual({ _tag: "TooDeep", field: "is_draft" })
  })
})

describe("refuseStoredText", () => {
  it.effect("fails with ValidationFailed naming each field, the depth as a violation of its own", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(refuseStoredText({ caption: "\u0000", idempotency_key: "\udfff" }, ["rows", 1]))
      expect(refused.violations).toEqual([
        { field: "rows[1].caption", account: null, message: "contains a NUL character (U+0000)" },
        { field: "rows[1].idempotency_key", account: null, message: "contains an unpaired surrogate (U+DFFF)" }
      ])
      const deep = yield* Effect.flip(refuseStoredText({ caption: nested(100) }))
      expect(deep.violations).toEqual([{ field: "caption", account: null, message: `is nested deeper than ${maxJsonDepth} levels` }])
      expect(yield* Effect.either(refuseStoredText({ caption: "fine" }))).toEqual(Either.right(undefined))
    }))
})

describe("echoes", () => {
  it("quote repeats a short text and cuts a long one, giving its length", () => {
    expect(quote("a\u0000b")).toBe("\"a\\u0000b\"")
    const long = quote("y".repeat(10_000))
    expect(long.length).toBeLessThan(100)
    expect(long).toContain("(10000 characters)")
  })

  it("fieldPath writes paths as errors name them and cuts a long key", () => {
    expect(fieldPath(["platform_configurations", "x", "thread", 2])).toBe("platform_configurations.x.thread[2]")
    expect(fieldPath([])).toBe("body")
    expect(fieldPath(["k".repeat(500)]).length).toBeLessThan(100)
  })
})

describe("foreignText", () => {
  it("keeps a clean, short text as it is", () => {
    expect(foreignText("Status is a duplicate. 👍")).toBe("Status is a duplicate. 👍")
  })

  it("replaces NULs and unpaired surrogates with U+FFFD", () => {
    expect(foreignText("bad\u0000reply \ud83d and \ude00")).toBe("bad\ufffdreply \ufffd and \ufffd")
  })

  it("cuts a long text at the limit with an ellipsis, never inside a surrogate pair", () => {
    const page = `${"x".repeat(foreignTextLimit - 2)}😀${"y".repeat(50_000)}`
    const kept = foreignText(page)
    expect(kept.length).toBeLessThanOrEqual(foreignTextLimit)
    expect(kept.endsWith("\u2026")).toBe(true)
    expect(refusedCharacter(kept)).toBeNull()
  })

  it("always gives a storable text no longer than the limit, the same text when it already was one", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ unit: "binary", minLength: foreignTextLimit - 10, maxLength: foreignTextLimit + 10 }), (text) => {
        const kept = foreignText(text)
        expect(refusedCharacter(kept)).toBeNull()
        expect(kept.length).toBeLessThanOrEqual(foreignTextLimit)
        if (refusedCharacter(text) === null && text.length <= foreignTextLimit) expect(kept).toBe(text)
      }),
      { numRuns: 30 }
    )
  })
})
