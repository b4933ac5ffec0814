import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import twitterText from "twitter-text"
import { xWeightedLength } from "../src/platforms/CaptionLength.js"

/** X's own counting library is the oracle: Herald must count every text as X counts it. */
const xCounts = (text: string) => twitterText.parseTweet(text).weightedLength

const pieces = [
  "hello", "Hello world", " ", "\n", ".", ",", "!", "(", ")", "-", "_", "/", "@", "#", "$", "?",
  "café", "cafe\u0301", "naïve", "Ωmega", "привет", "שלום", "مرحبا", "हिन्दी", "ไทย",
  "日本語", "한국어", "中文", "ｆｕｌｌ", "…", "\u2014", "\u2019", "\u2033", "\u00a9", "\u2122", "\u00ae",
  "😀", "👍🏽", "👩‍👩‍👧", "🇯🇵", "#️⃣", "❤️", "☺", "✈", "𝔘", "𠀋",
  "https://example.com", "http://a.co/x", "https://x.com/herald/status/1?s=20", "https://example.com/path_(x)",
  "example.com", "sub.example.org/page", "herald.dev", "a.co", "b.io/x.", "b.io/x.(a)", "b.io/x.(a)b", "file.txt", "v1.2", "e.g.", "t.co/abc",
  "www.example.co.uk", "mail@example.com", "@user", "#tag", "$CASH", "-x.com", "HTTPS://EXAMPLE.COM"
]

describe("X's weighted length", () => {
  it.each(pieces)("counts %j as twitter-text 3.1.0 does", (piece) => {
    expect(xWeightedLength(piece)).toBe(xCounts(piece))
  })

  it("counts any mix of words, scripts, emoji and links as twitter-text 3.1.0 does", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.array(FastCheck.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const text = parts.join(parts.length % 2 === 0 ? " " : "")
        expect(xWeightedLength(text)).toBe(xCounts(text))
      }),
      { numRuns: 2000 }
    )
  })

  it.each([
    "हिन्दीhello한국어hello中文Ωmegaexample.com",
    `${"a".repeat(64)}.com and ${"b".repeat(63)}.com`,
    "xn--abc.com",
    "https://münchen.de/x",
    `https://${"ü".repeat(40)}.de/`
  ])("takes a domain as X does: each label at most 63 characters once in punycode (%#)", (text) => {
    expect(xWeightedLength(text)).toBe(xCounts(text))
  })

  it("counts a link whose domain has any letters before it as twitter-text 3.1.0 does", () => {
    const letters = FastCheck.constantFrom("a", "ü", "中", "한", "Ω", "ह", "ि", "😀", "-", "1")
    FastCheck.assert(
      FastCheck.property(FastCheck.array(letters, { maxLength: 70 }), FastCheck.boolean(), (label, scheme) => {
        const text = `${scheme ? "https://" : ""}${label.join("")}example.com/x`
        expect(xWeightedLength(text)).toBe(xCounts(text))
      }),
      { numRuns: 500 }
    )
  })

  it("charges a link 23 however long it is", () => {
    const long = `https://example.com/${"a".repeat(200)}`
    expect(xWeightedLength(long)).toBe(23)
    expect(xWeightedLength(`see ${long}`)).toBe(27)
  })
})
