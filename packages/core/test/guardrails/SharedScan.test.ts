import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { bannedTermMatcher, builtinLexicon, compileLexicon, type Lexicon, wordsOf } from "@herald/core"
import { foldText, originalOffsets } from "../../src/guardrails/Normalize.js"
import { foldedWords, type Words, wordsOfFolded } from "../../src/guardrails/Words.js"
import { referenceFind } from "./ReferenceBannedTerms.js"

// The lexicon reads a text through the banned-term matcher's scan (Words.ts), splitting the few
// words that hold @, $ or an astral letter, and the matcher maps spans back through a sparse table
// of the non-ASCII characters. These references do the same the plain way, one unit at a time.

const isWordUnit = (unit: string): boolean => !/[\ud800-\udfff]/.test(unit) && /^[\p{L}\p{N}]$/u.test(unit)
const suffixes = ["ings", "ing", "ers", "ed", "es", "er", "s", "ly"]
const stemOf = (word: string): string => {
  const suffix = suffixes.find((suffix) => word.length - suffix.length >= 3 && word.endsWith(suffix))
  return suffix === undefined ? word : word.slice(0, -suffix.length)
}
const referenceWords = (text: string): Array<{ word: string; stem: string }> => {
  const words: Array<{ word: string; stem: string }> = []
  let word = ""
  for (const unit of [...foldText(text).split(""), " "]) {
    if (isWordUnit(unit)) word += unit
    else if (word !== "") {
      words.push({ word, stem: stemOf(word) })
      word = ""
    }
  }
  return words
}
const referenceScores = (lexicon: Lexicon, text: string) => {
  const stems = [...new Set(referenceWords(text).map(({ stem }) => stem))]
  return new Map(
    [...Object.entries(lexicon.topics), ...Object.entries(lexicon.tones)].map(([name, { bias, weights }]) => {
      const sum = stems.reduce((total, stem) => total + (weights[stem] ?? 0), bias)
      const evidence = stems.filter((stem) => (weights[stem] ?? 0) > 0).sort((a, b) => weights[b]! - weights[a]!).slice(0, 3)
      return [name, { score: 1 / (1 + Math.exp(-sum)), evidence }]
    })
  )
}

const referenceOffsets = (text: string): Array<number> | null => {
  const offsets: Array<number> = []
  for (let index = 0; index < text.length;) {
    const codePoint = text.codePointAt(index)!
    const units = codePoint > 0xffff ? 2 : 1
    for (let unit = 0; unit < foldText(String.fromCodePoint(codePoint)).length; unit++) offsets.push(index)
    index += units
  }
  offsets.push(text.length)
  return offsets.length === foldText(text).length + 1 ? offsets : null
}

const stems = Object.keys(builtinLexicon.topics["violence"]!.weights)
const piece = fc.oneof(
  fc.constantFrom(...stems),
  fc.constantFrom(...stems).map((stem) => stem.toUpperCase()),
  fc.constantFrom("ing", "ings", "s", "ed", "es", "er", "ers", "ly", "e"),
  fc.constantFrom(" ", "  ", ".", "-", "'", "\n", ", ", "!", "@", "$", "#", "/"),
  fc.constantFrom("é", "É", "ﬁ", "ß", "\u200b", "\u00ad", "ｂ", "İ", "Σ", "2024", "0", "1"),
  fc.constantFrom("𝐀", "𝒶", "😀", "\ud800", "\udc00", "\ud83d")
)
const text = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(""))

// A scan's arrays are shared by every scan: copied out before the next one.
const copied = (words: Words) => ({
  text: words.text,
  words: Array.from({ length: words.count }, (_, at) => ({
    start: words.starts[at],
    end: words.ends[at],
    hash: words.hashes[at],
    flags: words.flags[at],
    gap: words.gaps[at]
  }))
})

describe("one scan for the banned-term matcher and the lexicon", () => {
  const lexicon = compileLexicon(builtinLexicon)

  it("gives the words and stems the plain unit-by-unit reading gives", () => {
    fc.assert(fc.property(text, (sample) => {
      expect(wordsOf(sample)).toEqual(referenceWords(sample))
    }), { numRuns: 2000 })
  })

  it("scores every class exactly as the plain reading of the lexicon does, scanning afresh or reusing the matcher's scan", () => {
    const matcher = bannedTermMatcher(stems.slice(0, 50))
    fc.assert(fc.property(text, fc.boolean(), (sample, matchFirst) => {
      if (matchFirst) matcher.find(sample)
      expect(lexicon.score(sample)).toEqual(referenceScores(builtinLexicon, sample))
    }), { numRuns: 2000 })
  })

  it("folds and scans in one pass to the same folded text and words as folding, then scanning", () => {
    fc.assert(fc.property(text, (sample) => {
      const { offsetsKept, words } = foldedWords(sample)
      const inOnePass = copied(words)
      expect(inOnePass).toEqual(copied(wordsOfFolded(foldText(sample))))
      // Where it says offsets survived folding, the folded text maps back to the text unit for unit.
      if (offsetsKept) expect(referenceOffsets(sample)).toEqual(Array.from({ length: sample.length + 1 }, (_, at) => at))
    }), { numRuns: 2000 })
  })

  it("maps every offset of the folded text back as a per-character table does", () => {
    fc.assert(fc.property(text, (sample) => {
      const expected = referenceOffsets(sample)
      const offsets = originalOffsets(sample)
      if (expected === null) return expect(offsets).toBeNull()
      expect(expected.map((_, folded) => offsets!(folded))).toEqual(expected)
    }), { numRuns: 2000 })
  })
})

// Few letters, so that terms and texts meet often: numbers, leetspeak, stretched letters, sigils,
// letters spread out or split by joiners, phrases across commas and sentence ends.
const termWord = fc.constantFrom("ab", "ba", "bab", "aab", "abba", "b4", "100", "1000", "ioo", "lol", "aaa", "é", "ab$")
const term = fc.array(termWord, { minLength: 1, maxLength: 3 }).chain((words) =>
  fc.constantFrom(" ", "").map((separator) => words.join(separator))
)
const textPiece = fc.oneof(
  fc.constantFrom("a", "b", "ab", "ba", "bab", "aab", "abba", "aaab", "bbba", "lol", "Ab", "BA", "é", "É"),
  fc.constantFrom("1", "0", "4", "100", "1000", "10", "@", "$", "2024"),
  fc.constantFrom(" ", " ", "  ", ".", "-", "'", "_", ", ", ". ", "\n", "!", "#", "/", " . "),
  fc.constantFrom("ｂ", "\u200b", "😀", "𝐚")
)
const bannedText = fc.array(textPiece, { maxLength: 30 }).map((pieces) => pieces.join(""))

describe("the banned-term search", () => {
  it("finds the same terms, with the same spans, as the plain reading of every word and joined run", () => {
    fc.assert(fc.property(fc.array(term, { minLength: 1, maxLength: 6 }), bannedText, (terms, sample) => {
      expect(bannedTermMatcher(terms).find(sample)).toEqual(referenceFind(terms, sample))
    }), { numRuns: 3000 })
  })
})
