import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { bannedTermMatcher } from "@herald/core"

const terms = ["badword", "class", "crème", "kill", "shit", "ass", "bad deal", "xyz"]
const find = (text: string) => bannedTermMatcher(terms).find(text).map(({ term }) => term)

describe("banned terms: case, accents and compatibility forms", () => {
  it.each([
    ["upper case", "This is a BADWORD here", ["badword"]],
    ["accent in the text, none in the term", "my KÏLL list", ["kill"]],
    ["accent in the term, none in the text", "creme brulee", ["crème"]],
    ["accent on both sides", "la Crème", ["crème"]],
    ["decomposed accent (e + combining grave)", "cre\u0300me", ["crème"]],
    ["full-width letters", "ｂａｄｗｏｒｄ", ["badword"]],
    ["zero-width space inside the word", "bad\u200bword", ["badword"]],
    ["soft hyphen inside the word", "bad\u00adword", ["badword"]]
  ])("%s", (_name, text, expected) => {
    expect(find(text)).toEqual(expected)
  })
})

describe("banned terms: whole words only", () => {
  it.each([
    ["a longer word", "a classic move"],
    ["a word ending with it", "subclass"],
    ["a word around it", "passage, assassin, skill, killer"],
    ["letters spread over two real words", "bad wordplay"],
    ["a multi-word term broken by a sentence end", "That was bad. Deal with it."],
    ["a multi-word term across a line break", "bad\ndeal"]
  ])("does not match %s", (_name, text) => {
    expect(find(text)).toEqual([])
  })

  it("matches between punctuation and at both ends", () => {
    expect(find("class")).toEqual(["class"])
    expect(find("(class), 'kill'!")).toEqual(["class", "kill"])
  })

  it("matches a multi-word term across spaces and commas, and run together", () => {
    expect(find("a Bad  Deal today")).toEqual(["bad deal"])
    expect(find("bad, deal")).toEqual(["bad deal"])
    expect(find("what a baddeal")).toEqual(["bad deal"])
  })
})

describe("banned terms: evasions", () => {
  it.each([
    ["inserted spaces", "b a d w o r d", "badword"],
    ["dots", "b.a.d.w.o.r.d", "badword"],
    ["dashes", "k-i-l-l", "kill"],
    ["underscores", "k_i_l_l", "kill"],
    ["mixed separators", "k. i - l _ l", "kill"],
    ["a split word", "sh-it", "shit"],
    ["0 for o", "badw0rd", "badword"],
    ["1 for i", "k1ll", "kill"],
    ["1 for l", "ki11", "kill"],
    ["3 for e", "cr3me", "crème"],
    ["4 for a", "b4dword", "badword"],
    ["5 and 7 for s and t", "5hi7", "shit"],
    ["@ for a", "b@dword", "badword"],
    ["$ for s", "a$$", "ass"],
    ["only symbols", "@$$", "ass"],
    ["swaps and separators together", "b 4 d w 0 r d", "badword"],
    ["stretched letters", "baaaadwooord", "badword"],
    ["a mention sigil", "@kill", "kill"],
    ["spaced letters after a one-letter word", "a k i l l", "kill"]
  ])("%s", (_name, text, term) => {
    expect(find(`this is ${text} indeed`)).toContain(term)
  })

  it("reads a number as a number", () => {
    expect(bannedTermMatcher(["1488"]).find("code 1488")).toEqual([{ term: "1488", span: { start: 5, end: 9 } }])
    expect(bannedTermMatcher(["ioo"]).find("call 100 now")).toEqual([])
  })

  it("does not squeeze ordinary double letters", () => {
    expect(bannedTermMatcher(["god"]).find("good food")).toEqual([])
  })

  const letters = "abcdefghijklmnopqrstuvwxyz"
  const word = fc.string({ unit: fc.constantFrom(...letters), minLength: 3, maxLength: 10 })
  const separator = fc.constantFrom(" ", ".", "-", "_", " . ", "*", "·")

  it("property: a banned word with a separator between every letter is always caught", () => {
    fc.assert(fc.property(word, fc.array(separator, { minLength: 9, maxLength: 9 }), (term, separators) => {
      const spelled = [...term].map((letter, index) => index === 0 ? letter : separators[index - 1] + letter).join("")
      return bannedTermMatcher([term]).find(`look: ${spelled} there`).some((found) => found.term === term)
    }))
  })

  it("property: a text made only of allowed words (none equal to a term) is never flagged", () => {
    const allowed = fc.array(word, { minLength: 1, maxLength: 30 })
    fc.assert(fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), allowed, (banned, words) => {
      // Multi-letter words separated by punctuation that ends sentences: nothing is joined, so only
      // a word equal to a term, or a stretched one ("aaab" for "ab"), could match.
      fc.pre(words.every((candidate) => !banned.includes(candidate) && !/(.)\1\1/.test(candidate)))
      return bannedTermMatcher(banned).find(words.join(". ")).length === 0
    }))
  })
})

describe("banned terms: compiled once per list", () => {
  it("returns the same matcher for the same array and for an equal array", () => {
    const list = ["alpha", "beta"]
    expect(bannedTermMatcher(list)).toBe(bannedTermMatcher(list))
    expect(bannedTermMatcher([...list])).toBe(bannedTermMatcher(list))
    expect(bannedTermMatcher(["alpha"])).not.toBe(bannedTermMatcher(list))
  })

  it("ignores blank terms and reports terms as configured, trimmed", () => {
    expect(bannedTermMatcher(["  ", "", " Bad Deal "]).find("a bad deal")).toEqual([{ term: "Bad Deal", span: { start: 2, end: 10 } }])
  })
})

describe("where a banned term stands", () => {
  it("gives the span of the text as written, across folding, joining and phrases", () => {
    const spanned = (list: ReadonlyArray<string>, text: string) =>
      bannedTermMatcher(list).find(text).map(({ span, term }) => [term, span === undefined ? null : text.slice(span.start, span.end)])
    expect(spanned(["bad"], "so B.A.D today")).toEqual([["bad", "B.A.D"]])
    expect(spanned(["bad deal"], "what a Bad, deal")).toEqual([["bad deal", "Bad, deal"]])
    expect(spanned(["cafe"], "Straße café ok")).toEqual([["cafe", "café"]])
    expect(spanned(["strasse"], "an ｓｔｒａßｅ here")).toEqual([["strasse", "ｓｔｒａßｅ"]])
  })
})
