import { foldText } from "./Normalize.js"

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

const unknownKind = 2
const wordKinds = new Uint8Array(0x10000).fill(unknownKind)
const isWordCode = (code: number): boolean => {
  const kind = wordKinds[code]!
  if (kind !== unknownKind) return kind === 1
  // Surrogate halves are left out: astral letters are rare in captions and emoji are not words.
  const word = code < 0xd800 || code > 0xdfff ? /^[\p{L}\p{N}]$/u.test(String.fromCharCode(code)) : false
  wordKinds[code] = word ? 1 : 0
  return word
}

// A crude suffix stripper ("voting", "voted", "votes" → "vot"): enough to let a few hundred
// captions cover the forms of their words. Suffixes are tried longest first; a stem keeps three letters.
const suffixes = ["ings", "ing", "ers", "ed", "es", "er", "s", "ly"]
const minStem = 3

// Every suffix ends in one of these letters: a word ending otherwise has no suffix to try.
const suffixEnds = new Set(suffixes.map((suffix) => suffix.charCodeAt(suffix.length - 1)))

/** Where the stem of the word folded[start, end) ends. */
const stemEnd = (folded: string, start: number, end: number): number => {
  if (!suffixEnds.has(folded.charCodeAt(end - 1))) return end
  for (const suffix of suffixes) {
    if (end - start - suffix.length >= minStem && folded.startsWith(suffix, end - suffix.length)) return end - suffix.length
  }
  return end
}

/** The words of the folded text, each with where its stem ends, in order. */
const forEachWord = (folded: string, visit: (start: number, end: number, stem: number) => void): void => {
  let start = -1
  for (let index = 0; index <= folded.length; index++) {
    if (index < folded.length && isWordCode(folded.charCodeAt(index))) {
      if (start < 0) start = index
    } else if (start >= 0) {
      visit(start, index, stemEnd(folded, start, index))
      start = -1
    }
  }
}

/** The words of a text, folded, with the stem of each (what the lexicon's weights are keyed by). */
export const wordsOf = (text: string): Array<{ readonly word: string; readonly stem: string }> => {
  const folded = foldText(text)
  const words: Array<{ word: string; stem: string }> = []
  forEachWord(folded, (start, end, stem) => words.push({ word: folded.slice(start, end), stem: folded.slice(start, stem) }))
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

const fnvSeed = 0x811c9dc5 | 0
const fnvPrime = 0x01000193

const hashOf = (word: string): number => {
  let hash = fnvSeed
  for (let index = 0; index < word.length; index++) hash = Math.imul(hash ^ word.charCodeAt(index), fnvPrime)
  return hash
}

const logistic = (x: number): number => 1 / (1 + Math.exp(-x))
const evidenceShown = 3

/**
 * Compiles a lexicon for scanning: each word's stem is hashed in place (FNV-1a), and a hash table
 * of the lexicon's stems answers the probe with a few array reads, so a word that is in no class
 * never becomes a string. A probe that hits is confirmed against the stem's spelling.
 */
export const compileLexicon = (lexicon: Lexicon): CompiledLexicon => {
  const classes = [...Object.entries(lexicon.topics), ...Object.entries(lexicon.tones)]
  const stems = [...new Set(classes.flatMap(([, { weights }]) => Object.keys(weights)))]
  const weights = stems.map((stem) => Float64Array.from(classes, ([, { weights }]) => weights[stem] ?? 0))
  let size = 16
  while (size < stems.length * 2) size *= 2
  const mask = size - 1
  const slots = new Int32Array(size).fill(-1)
  const hashes = new Int32Array(size)
  stems.forEach((stem, id) => {
    const hash = hashOf(stem)
    let slot = hash & mask
    while (slots[slot] !== -1) slot = (slot + 1) & mask
    slots[slot] = id
    hashes[slot] = hash
  })

  // The hash of each prefix of the current word, so the stem's hash is read, not recomputed.
  let prefixHashes = new Int32Array(64)
  const score = (text: string): ReadonlyMap<string, ClassScore> => {
    const folded = foldText(text)
    const found = new Set<number>()
    let start = -1
    let hash = fnvSeed
    for (let index = 0; index <= folded.length; index++) {
      const code = index < folded.length ? folded.charCodeAt(index) : -1
      if (code >= 0 && isWordCode(code)) {
        if (start < 0) {
          start = index
          hash = fnvSeed
        }
        hash = Math.imul(hash ^ code, fnvPrime)
        const length = index - start
        if (length >= prefixHashes.length) {
          const grown = new Int32Array(prefixHashes.length * 2)
          grown.set(prefixHashes)
          prefixHashes = grown
        }
        prefixHashes[length] = hash
      } else if (start >= 0) {
        const end = stemEnd(folded, start, index)
        const stemHash = prefixHashes[end - start - 1]!
        for (let slot = stemHash & mask; slots[slot] !== -1; slot = (slot + 1) & mask) {
          const id = slots[slot]!
          if (hashes[slot] === stemHash && stems[id]!.length === end - start && folded.startsWith(stems[id]!, start)) {
            found.add(id)
            break
          }
        }
        start = -1
      }
    }
    const scores = new Map<string, ClassScore>()
    classes.forEach(([name, { bias }], index) => {
      let sum = bias
      const pushing: Array<readonly [string, number]> = []
      for (const id of found) {
        const weight = weights[id]![index]!
        sum += weight
        if (weight > 0) pushing.push([stems[id]!, weight])
      }
      pushing.sort((a, b) => b[1] - a[1])
      scores.set(name, { score: logistic(sum), evidence: pushing.slice(0, evidenceShown).map(([feature]) => feature) })
    })
    return scores
  }

  return { topicNames: Object.keys(lexicon.topics), toneNames: Object.keys(lexicon.tones), score }
}
