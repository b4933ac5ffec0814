import { foldText, originalOffsets } from "./Normalize.js"
import {
  fnvPrime,
  fnvSeed,
  foldedWords,
  hasDigit,
  type HashFilter,
  hashFilter,
  hashOf,
  hasLetter,
  hasTriple,
  joinGap,
  mayHold,
  phraseGap,
  sliceOf,
  spacedGap,
  unitAt,
  type Words,
  wordsOfFolded
} from "./Words.js"

/**
 * Banned-term matching: whole words only, multi-word terms allowed, on case-, accent- and
 * compatibility-folded text (see Normalize.ts), catching the cheap evasions:
 *
 * - leetspeak: inside a word that has a letter, @ or $, the characters 0→o, 1→i or l, 3→e, 4→a,
 *   5→s, 7→t, @→a, $→s are also read as letters ("sh1t", "@ss", "b4d"). A word made only of
 *   digits is a number and is read literally; every word is also tried as written, and with its
 *   @ and $ dropped, so "@bad" (a mention) and "$bad" still match "bad".
 * - split letters: letters separated by short runs of spaces or joiner punctuation
 *   (. - _ * ' ’ · ~ + | / \ •) are read together: "b a d", "b.a.d", "b-a-d", "b_4_d".
 * - split words: fragments joined by joiner punctuation without any space ("sh-it", "bad.word")
 *   are read together as well.
 * - stretched letters: a word with three or more of the same letter in a row is also read with
 *   every run squeezed to one letter, against the terms squeezed the same way ("baaaad" → "bad").
 * - a multi-word term also matches its words run together ("badword" for "bad word"), and its
 *   words may be separated by spaces or by punctuation that does not end a sentence
 *   ("bad, word" matches; "bad. Word" does not).
 *
 * False positives from joining across real words are kept low by what is joined: whitespace
 * joins only single characters ("b a d"; real prose rarely puts two one-letter words side by
 * side, "a" and "I" aside), and punctuation joins fragments only when no space is involved,
 * which prose does inside compounds ("e-mail") and URLs but not between separate words.
 * A joined run must still equal a whole term: "classic" never matches "class", nor "b a d x" "bad"
 * ("a b a d" does: every run of consecutive pieces is tried). Not caught: mixtures of a split
 * word and a normal one ("bad w o r d"), doubled letters ("baad"), letters swapped for
 * look-alikes from other scripts that NFKC does not fold (Cyrillic "а").
 */
export interface BannedTermMatcher {
  /** How many terms the list holds once blank ones are dropped: zero means nothing to check. */
  readonly size: number
  /** The configured terms found in the text, as configured, each once, in order of discovery, with where. */
  readonly find: (text: string) => ReadonlyArray<FoundTerm>
}

/**
 * A term found in a text, and the span of the text that spells it (UTF-16 offsets into the text
 * as given, end exclusive): its first occurrence. The span is absent in the rare text whose
 * folding cannot be traced back character by character.
 */
export interface FoundTerm {
  readonly term: string
  readonly span?: { readonly start: number; readonly end: number }
}

interface CompiledTerm {
  readonly term: string
  readonly words: ReadonlyArray<string>
}

interface IndexEntry {
  /** The term whose words, run together, spell this key. */
  joined: CompiledTerm | undefined
  /** Multi-word terms whose first word is this key. */
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
  /** The hashes of the index's keys. */
  readonly keys: HashFilter
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
  return { index, squeezedIndex, keys: hashFilter([...index.keys()].map((key) => hashOf(key))), longestRun: longestJoined * 2, size }
}

const spelling = (words: Words, at: number): string => sliceOf(words, words.starts[at]!, words.ends[at]!)
/** The words first..last run together. */
const spelledRun = (words: Words, first: number, last: number): string => {
  let run = ""
  for (let at = first; at <= last; at++) run += spelling(words, at)
  return run
}
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
    const { compiled, words } = this
    const { count, flags, hashes } = words
    for (let at = 0; at < count; at++) {
      const wordFlags = flags[at]!
      // Most words are letters only, or a number (read only as written): their one reading is their
      // spelling, and the hash probe rejects most of them without building a string.
      if (wordFlags === hasLetter || wordFlags === hasDigit || wordFlags === (hasDigit | hasTriple)) {
        if (mayHold(compiled.keys, hashes[at]!)) this.lookUp(spelling(words, at), at, at)
      } else {
        const { forms, squeezed } = this.readingsAt(at)
        for (const form of forms) this.lookUp(form, at, at)
        this.lookUpSqueezed(squeezed, at, at)
      }
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
    const { ends, flags, starts } = words
    // The run is hashed as it grows, as the scan hashes a word: a run of letters only (no three
    // alike in a row) or of digits only has one reading, its spelling, which the hash probe
    // rejects without building it. Other runs are spelled out and read as a word is.
    let hash = fnvSeed
    let runFlags = 0
    let length = 0
    let previous = -1
    let beforePrevious = -1
    for (let next = first; next < words.count; next++) {
      for (let index = starts[next]!; index < ends[next]!; index++) {
        const code = unitAt(words, index)
        hash = Math.imul(hash ^ code, fnvPrime)
        if (code === previous && code === beforePrevious) runFlags |= hasTriple
        beforePrevious = previous
        previous = code
      }
      runFlags |= flags[next]!
      length += ends[next]! - starts[next]!
      if (next === first) continue
      if (length > compiled.longestRun) return
      if (runFlags === hasLetter || (runFlags & ~hasTriple) === hasDigit) {
        if (mayHold(compiled.keys, hash)) this.lookUp(spelledRun(words, first, next), first, next)
      } else {
        const { forms, squeezed } = readingsOf(spelledRun(words, first, next))
        // A joined run never continues a phrase: looked up as a whole word only.
        for (const form of forms) this.lookUp(form, first, next)
        this.lookUpSqueezed(squeezed, first, next)
      }
      if (!isLinked(words, next)) return
    }
  }
}

const matcherOf = (compiled: Compiled): BannedTermMatcher => ({
  size: compiled.size,
  find: (text) => {
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

// Compiling a term list costs far more than checking a post with it (bench/README.md, Guardrails).
// Settings read once and checked many times hit the identity cache; settings decoded afresh per
// request (a new array each time) hit the content cache, keyed on the terms themselves.
const byIdentity = new WeakMap<ReadonlyArray<string>, BannedTermMatcher>()
const byContent = new Map<string, BannedTermMatcher>()
const maxCachedLists = 64

/** The matcher for a list of banned terms, compiled once per list. */
export const bannedTermMatcher = (terms: ReadonlyArray<string>): BannedTermMatcher => {
  const known = byIdentity.get(terms)
  if (known !== undefined) return known
  const key = terms.join("\u0000")
  const matcher = byContent.get(key) ?? matcherOf(compile(terms))
  // Re-inserting keeps the Map in least-recently-used order, so the oldest entry goes first.
  byContent.delete(key)
  byContent.set(key, matcher)
  if (byContent.size > maxCachedLists) byContent.delete(byContent.keys().next().value!)
  byIdentity.set(terms, matcher)
  return matcher
}
