import type { FoundTerm } from "@herald/core"
import { foldText, originalOffsets } from "../../src/guardrails/Normalize.js"
import { foldedWords, joinGap, phraseGap, spacedGap, type Words, wordsOfFolded } from "../../src/guardrails/Words.js"

/**
 * The banned-term search as it was before its hash probes for numbers and joined runs: every
 * word that is not letters only, and every joined run, spelled out and read through readingsOf.
 * The property test in SharedScan.test.ts holds the matcher to it.
 */

interface CompiledTerm {
  readonly term: string
  readonly words: ReadonlyArray<string>
}

interface IndexEntry {
  joined: CompiledTerm | undefined
  readonly phrases: Array<CompiledTerm>
}

// ---- Readings of a word: its spelling plus the leetspeak, sigil-free and squeezed forms ----

const leet: Record<string, string> = { "0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s" }
const leetPattern = /[03457@$]/g
const onlyDigits = /^[0-9]+$/
const symbols = /[@$]+/g
const tripleLetter = /(.)\1\1/
const squeeze = (word: string): string => word.replace(/(.)\1+/g, "$1")
// Past this many 1s only the all-i and all-l readings are tried, so a word costs at most 8 readings.
const maxAmbiguousOnes = 3

const readOnes = (word: string): Array<string> => {
  const ones = word.split("1").length - 1
  if (ones === 0) return [word]
  if (ones > maxAmbiguousOnes) return [word.replaceAll("1", "i"), word.replaceAll("1", "l")]
  let readings = [""]
  for (const char of word) {
    readings = char === "1" ? readings.flatMap((prefix) => [prefix + "i", prefix + "l"]) : readings.map((prefix) => prefix + char)
  }
  return readings
}

interface Readings {
  readonly forms: ReadonlyArray<string>
  /** Forms with a run of three equal letters, squeezed; looked up among squeezed terms only. */
  readonly squeezed: ReadonlyArray<string>
}

const noForms: ReadonlyArray<string> = []
const needsAnotherReading = /[0-9@$]|(.)\1\1/

const readingsOf = (word: string): Readings => {
  if (!needsAnotherReading.test(word)) return { forms: [word], squeezed: noForms }
  if (onlyDigits.test(word)) return { forms: [word], squeezed: noForms }
  const forms = new Set([word])
  const decoded = word.replace(leetPattern, (char) => leet[char] ?? char)
  for (const reading of decoded.includes("1") ? readOnes(decoded) : [decoded]) forms.add(reading)
  const withoutSymbols = word.replace(symbols, "")
  if (withoutSymbols !== "") forms.add(withoutSymbols)
  const squeezed = new Set<string>()
  for (const form of forms) if (tripleLetter.test(form)) squeezed.add(squeeze(form))
  return { forms: [...forms], squeezed: [...squeezed] }
}

// ---- Compiling a term list and matching against it ----

interface Compiled {
  readonly index: ReadonlyMap<string, IndexEntry>
  readonly squeezedIndex: ReadonlyMap<string, ReadonlyArray<CompiledTerm>>
  /** A joined run longer than this cannot spell a term (@ and $ dropped from a reading shorten it). */
  readonly longestRun: number
  readonly size: number
}

const compile = (terms: ReadonlyArray<string>): Compiled => {
  const index = new Map<string, IndexEntry>()
  const squeezedIndex = new Map<string, Array<CompiledTerm>>()
  let longestJoined = 0
  let size = 0
  const entry = (key: string): IndexEntry => {
    const existing = index.get(key)
    if (existing !== undefined) return existing
    const created: IndexEntry = { joined: undefined, phrases: [] }
    index.set(key, created)
    return created
  }
  for (const configured of terms) {
    const term = configured.trim()
    const words = spellings(wordsOfFolded(foldText(term)))
    if (words.length === 0) continue
    size++
    const compiled: CompiledTerm = { term, words }
    const joined = words.join("")
    longestJoined = Math.max(longestJoined, joined.length)
    entry(joined).joined ??= compiled
    if (words.length > 1) entry(words[0]!).phrases.push(compiled)
    const squeezed = squeeze(joined)
    squeezedIndex.set(squeezed, [...(squeezedIndex.get(squeezed) ?? []), compiled])
  }
  return { index, squeezedIndex, longestRun: longestJoined * 2, size }
}

const spelling = (words: Words, at: number): string => words.text.slice(words.starts[at], words.ends[at])
const spellings = (words: Words): Array<string> => Array.from({ length: words.count }, (_, at) => spelling(words, at))

const isLinked = (words: Words, at: number): boolean =>
  (words.gaps[at]! & joinGap) !== 0 ||
  ((words.gaps[at]! & spacedGap) !== 0 &&
    words.ends[at]! - words.starts[at]! === 1 &&
    words.ends[at + 1]! - words.starts[at + 1]! === 1)

/** One search through one text; readings are computed only for words that need them. */
class Search {
  /** Each term found, with the first and last word of its first occurrence. */
  readonly found = new Map<CompiledTerm, readonly [number, number]>()
  private readonly readings: Array<Readings | undefined> = []
  constructor(private readonly compiled: Compiled, private readonly words: Words) {}

  run(): void {
    const { words } = this
    for (let at = 0; at < words.count; at++) {
      const { forms, squeezed } = this.readingsAt(at)
      for (const form of forms) this.lookUp(form, at, at)
      this.lookUpSqueezed(squeezed, at, at)
      if (isLinked(words, at)) this.joinRuns(at)
    }
  }

  private readingsAt(at: number): Readings {
    return (this.readings[at] ??= readingsOf(spelling(this.words, at)))
  }

  private add(term: CompiledTerm, first: number, last: number): void {
    if (!this.found.has(term)) this.found.set(term, [first, last])
  }

  /** A form of the words first..last: one word (first = last), or a run of fragments joined into one. */
  private lookUp(form: string, first: number, last: number): void {
    const hit = this.compiled.index.get(form)
    if (hit === undefined) return
    if (hit.joined !== undefined) this.add(hit.joined, first, last)
    if (first === last) {
      for (const phrase of hit.phrases) if (this.continues(phrase, first)) this.add(phrase, first, first + phrase.words.length - 1)
    }
  }

  private lookUpSqueezed(squeezed: ReadonlyArray<string>, first: number, last: number): void {
    for (const form of squeezed) for (const compiled of this.compiled.squeezedIndex.get(form) ?? []) this.add(compiled, first, last)
  }

  private continues(phrase: CompiledTerm, first: number): boolean {
    for (let k = 1; k < phrase.words.length; k++) {
      const at = first + k
      if (at >= this.words.count || (this.words.gaps[at - 1]! & phraseGap) === 0) return false
      if (!this.readingsAt(at).forms.includes(phrase.words[k]!)) return false
    }
    return true
  }

  /** Every run of two or more consecutive linked fragments starting at `first`, read as one word. */
  private joinRuns(first: number): void {
    const { compiled, words } = this
    let run = spelling(words, first)
    for (let next = first + 1; next < words.count; next++) {
      run += spelling(words, next)
      if (run.length > compiled.longestRun) return
      const { forms, squeezed } = readingsOf(run)
      // A joined run never continues a phrase: looked up as a whole word only.
      for (const form of forms) this.lookUp(form, first, next)
      this.lookUpSqueezed(squeezed, first, next)
      if (!isLinked(words, next)) return
    }
  }
}

const matcherOf = (compiled: Compiled) => ({
  size: compiled.size,
  find: (text: string): ReadonlyArray<FoundTerm> => {
    const { offsetsKept, words } = foldedWords(text)
    const search = new Search(compiled, words)
    search.run()
    if (search.found.size === 0) return []
    const offsets = offsetsKept ? (folded: number) => folded : originalOffsets(text)
    return [...search.found].map(([{ term }, [first, last]]): FoundTerm => {
      const start = words.starts[first]!
      const end = words.ends[last]!
      return offsets === null ? { term } : { term, span: { start: offsets(start), end: offsets(end) } }
    })
  }
})


/** The terms of `terms` found in `text`, by the plain reading. */
export const referenceFind = (terms: ReadonlyArray<string>, text: string): ReadonlyArray<FoundTerm> =>
  matcherOf(compile(terms)).find(text)
