import { foldText } from "./Normalize.js"
import { fnvPrime, fnvSeed, foldedWords, hasAstral, hashFilter, hashOf, hasSymbol, mayHold, unitAt, type Words, wordsOfFolded } from "./Words.js"

/**
 * The built-in classifier's model: per class (a topic such as "politics", or a tone such as
 * "professional", whose class holds what misses it), a weight per word stem and a bias. A text's
 * score is the logistic function of the bias plus the weights of the distinct stems it has, and
 * it belongs to the class at 0.5 or above. The weights are learned (a logistic regression) from
 * the build half of the labelled set in packages/core/test/guardrails; BuiltinLexicon.ts is
 * generated from it (docs/guardrails.md says how).
 */
export interface LexiconClass {
  readonly bias: number
  readonly weights: Readonly<Record<string, number>>
}

export interface Lexicon {
  readonly topics: Readonly<Record<string, LexiconClass>>
  readonly tones: Readonly<Record<string, LexiconClass>>
}

// ---- Words: maximal runs of letters and digits of the folded text ----

// A crude suffix stripper ("voting", "voted", "votes" → "vot"): enough to let a few hundred
// captions cover the forms of their words. Suffixes are tried longest first; a stem keeps three letters.
const suffixes = ["ings", "ing", "ers", "ed", "es", "er", "s", "ly"]
const minStem = 3

// The suffixes by their last letter (all ASCII), longest first: a word is compared only with the
// suffixes its last letter allows.
const suffixesByEnd: ReadonlyArray<ReadonlyArray<string>> = Array.from(
  { length: 128 },
  (_, code) => suffixes.filter((suffix) => suffix.charCodeAt(suffix.length - 1) === code)
)

const endsWith = (folded: string, end: number, suffix: string): boolean => {
  for (let index = suffix.length - 2, at = end - 2; index >= 0; index--, at--) {
    if (folded.charCodeAt(at) !== suffix.charCodeAt(index)) return false
  }
  return true
}

/** Where the stem of the word folded[start, end) ends. */
const stemEnd = (folded: string, start: number, end: number): number => {
  const last = folded.charCodeAt(end - 1)
  if (last >= 128) return end
  for (const suffix of suffixesByEnd[last]!) {
    if (end - start - suffix.length >= minStem && endsWith(folded, end, suffix)) return end - suffix.length
  }
  return end
}

// Lexicon words leave out what the scan (Words.ts) keeps inside a word: @, $ and letters outside
// the Basic Multilingual Plane (astral letters are rare in captions).
const isLexiconCode = (code: number): boolean => code !== 0x40 && code !== 0x24 && (code < 0xd800 || code > 0xdfff)

/**
 * Visits the lexicon words of the scanned word `at` (see isLexiconCode), each with its hash
 * (FNV-1a, as Words.ts hashes): the runs between its @, $ and astral letters.
 */
const forEachPart = (words: Words, at: number, visit: (start: number, end: number, hash: number) => void): void => {
  const end = words.ends[at]!
  let from = -1
  let hash = fnvSeed
  for (let index = words.starts[at]!; index <= end; index++) {
    const code = index < end ? unitAt(words, index) : -1
    if (code >= 0 && isLexiconCode(code)) {
      if (from < 0) {
        from = index
        hash = fnvSeed
      }
      hash = Math.imul(hash ^ code, fnvPrime)
    } else if (from >= 0) {
      visit(from, index, hash)
      from = -1
    }
  }
}

/** A scanned word holding @, $ or an astral letter: its parts are the lexicon's words. */
const splitsInParts = (flags: number): boolean => (flags & (hasSymbol | hasAstral)) !== 0

/**
 * Visits the words of the folded text in order, each with its hash (FNV-1a, as Words.ts hashes).
 * One scan of the text serves the banned-term matcher and this.
 */
const forEachWord = (words: Words, visit: (start: number, end: number, hash: number) => void): void => {
  for (let at = 0; at < words.count; at++) {
    if (splitsInParts(words.flags[at]!)) forEachPart(words, at, visit)
    else visit(words.starts[at]!, words.ends[at]!, words.hashes[at]!)
  }
}

/** The words of a text, folded, with the stem of each (what the lexicon's weights are keyed by). */
export const wordsOf = (text: string): Array<{ readonly word: string; readonly stem: string }> => {
  const folded = foldText(text)
  const words: Array<{ word: string; stem: string }> = []
  forEachWord(wordsOfFolded(folded), (start, end) =>
    words.push({ word: folded.slice(start, end), stem: folded.slice(start, stemEnd(folded, start, end)) }))
  return words
}

// ---- Scoring, compiled once per lexicon ----

/** One class's verdict on a text: its score (0..1) and the stems that pushed it up most. */
export interface ClassScore {
  readonly score: number
  readonly evidence: ReadonlyArray<string>
}

export interface CompiledLexicon {
  readonly topicNames: ReadonlyArray<string>
  readonly toneNames: ReadonlyArray<string>
  /** Scores of every class of the lexicon for one text, topics then tones, by name. */
  readonly score: (text: string) => ReadonlyMap<string, ClassScore>
}

/** Whether the folded text of `words` holds other[from, from + length) at `start`. */
const sameUnits = (words: Words, start: number, other: string, from: number, length: number): boolean => {
  for (let index = 0; index < length; index++) if (unitAt(words, start + index) !== other.charCodeAt(from + index)) return false
  return true
}

const logistic = (x: number): number => 1 / (1 + Math.exp(-x))
const evidenceShown = 3

/**
 * Compiles a lexicon for scanning. A word has a stem in the lexicon exactly when it is one of the
 * stem's spellings: the stem alone, or the stem with a suffix that stemEnd strips back to it. All
 * those spellings are hashed (FNV-1a) into a table, so a scanned word is looked up by the hash the
 * scan gave it: a word whose stem is in no class costs a bit test, is never stemmed and never
 * becomes a string. A probe that hits is confirmed against the spelling.
 */
export const compileLexicon = (lexicon: Lexicon): CompiledLexicon => {
  const classes = [...Object.entries(lexicon.topics), ...Object.entries(lexicon.tones)]
  const stems = [...new Set(classes.flatMap(([, { weights }]) => Object.keys(weights)))]
  const weights = stems.map((stem) => Float64Array.from(classes, ([, { weights }]) => weights[stem] ?? 0))
  const spellings = stems.flatMap((stem, id) =>
    ["", ...suffixes].map((suffix) => stem + suffix)
      .filter((word) => stemEnd(word, 0, word.length) === stem.length)
      .map((word) => ({ word, id, hash: hashOf(word) }))
  )
  // An open-addressed table of the spellings by hash, in typed arrays: per slot the spelling's
  // hash, its stem (-1: an empty slot), and where it is spelled in `spelled` (all of them run together).
  let size = 16
  while (size < spellings.length * 2) size *= 2
  const mask = size - 1
  const slotHashes = new Int32Array(size)
  const slotStems = new Int32Array(size).fill(-1)
  const slotStarts = new Int32Array(size)
  const slotLengths = new Int32Array(size)
  const spelled = spellings.map(({ word }) => word).join("")
  let spelledAt = 0
  for (const { hash, id, word } of spellings) {
    let slot = hash & mask
    while (slotStems[slot] !== -1) slot = (slot + 1) & mask
    slotHashes[slot] = hash
    slotStems[slot] = id
    slotStarts[slot] = spelledAt
    slotLengths[slot] = word.length
    spelledAt += word.length
  }
  const spellingHashes = hashFilter(spellings.map(({ hash }) => hash))

  // The stems found in the text, each once, in order of first appearance (the order their weights
  // are summed in), and a mark on each, cleared after scoring: nothing is allocated per stem.
  const found = new Int32Array(stems.length)
  const marked = new Uint8Array(stems.length)
  let count = 0
  /** Notes the stem of the folded word [start, end) of `words` hashed so, if it has one in the lexicon. */
  const note = (words: Words, start: number, end: number, hash: number): void => {
    for (let slot = hash & mask; slotStems[slot] !== -1; slot = (slot + 1) & mask) {
      const id = slotStems[slot]!
      // A stem already noted needs no confirming (its words recur: "the", "our"); a word spells one
      // spelling at most, so the probe goes on past it.
      if (marked[id] === 0 && slotHashes[slot] === hash && slotLengths[slot] === end - start &&
        sameUnits(words, start, spelled, slotStarts[slot]!, end - start)) {
        marked[id] = 1
        found[count++] = id
        return
      }
    }
  }
  const score = (text: string): ReadonlyMap<string, ClassScore> => {
    const { words } = foldedWords(text)
    count = 0
    const { ends, flags, hashes, starts } = words
    for (let at = 0; at < words.count; at++) {
      if (splitsInParts(flags[at]!)) {
        forEachPart(words, at, (start, end, hash) => {
          if (mayHold(spellingHashes, hash)) note(words, start, end, hash)
        })
        continue
      }
      // Most words have no stem in the lexicon: one bit test each.
      const hash = hashes[at]!
      if (mayHold(spellingHashes, hash)) note(words, starts[at]!, ends[at]!, hash)
    }
    const scores = new Map<string, ClassScore>()
    classes.forEach(([name, { bias }], index) => {
      let sum = bias
      const pushing: Array<readonly [string, number]> = []
      for (let at = 0; at < count; at++) {
        const id = found[at]!
        const weight = weights[id]![index]!
        sum += weight
        if (weight > 0) pushing.push([stems[id]!, weight])
      }
      pushing.sort((a, b) => b[1] - a[1])
      scores.set(name, { score: logistic(sum), evidence: pushing.slice(0, evidenceShown).map(([feature]) => feature) })
    })
    for (let at = 0; at < count; at++) marked[found[at]!] = 0
    return scores
  }

  return { topicNames: Object.keys(lexicon.topics), toneNames: Object.keys(lexicon.tones), score }
}
