import { foldedUnit, foldText } from "./Normalize.js"

/**
 * The words of a folded text (Normalize.ts), found in one pass: each word's place, its FNV-1a hash,
 * what kinds of character it holds, and what separates it from the next. The banned-term matcher
 * and the built-in lexicon both read a text through this scan, and the last scan is remembered,
 * so a check that runs both scans the text once.
 *
 * A word is a maximal run of letters, digits (any script), @ and $.
 */

// Word kinds are their own flag bits (beside hasTriple and hasAstral below): a word's flags are its
// kinds OR-ed. A separator's kind is a separator bit plus what it says about the gap it stands in
// (the Gap bits), so the scan ORs a gap's kinds as it goes and reads them once, when the next word
// starts. Const enums, so that their members are literals in the scan's loop, not module bindings
// it reads per character.
const enum Gap {
  Space = 1,
  SentenceEnd = 2,
  Other = 4,
  /** More units than this between two words and neither joins nor spaces them. */
  MaxJoinable = 3
}
const enum Kind {
  Digit = 1,
  Symbol = 2,
  Letter = 4,
  /** Kinds below this are word characters. */
  WordBelow = 8,
  Joiner = 16,
  Space = 16 | Gap.Space,
  Period = 16 | Gap.SentenceEnd,
  Other = 16 | Gap.Other,
  // A line break or ! ? ; : ends a sentence and is more than a joiner.
  Stop = 16 | Gap.SentenceEnd | Gap.Other,
  /** Kinds from here on need a closer look (a surrogate, a unit not classified yet). */
  HighSurrogate = 64,
  LowSurrogate = 65,
  Unclassified = 255
}

const classify = (char: string): Kind => {
  if (/^[\ud800-\udbff]$/.test(char)) return Kind.HighSurrogate
  if (/^[\udc00-\udfff]$/.test(char)) return Kind.LowSurrogate
  if (/^[\p{L}\p{N}]+$/u.test(char)) return /^[0-9]$/.test(char) ? Kind.Digit : Kind.Letter
  if (char === "@" || char === "$") return Kind.Symbol
  if (char === "\n" || char === "\r" || char === "\u2028" || char === "\u2029") return Kind.Stop
  if (/^\s$/u.test(char)) return Kind.Space
  if (char === ".") return Kind.Period
  if ("!?;:".includes(char)) return Kind.Stop
  if ("-_*'’·~+|/\\•".includes(char)) return Kind.Joiner
  return Kind.Other
}
const bmpKinds = new Uint8Array(0x10000).fill(Kind.Unclassified)
const astralKinds = new Map<number, Kind>()
const classifyUnit = (code: number): Kind => {
  const kind = classify(String.fromCharCode(code))
  bmpKinds[code] = kind
  return kind
}
const kindOfAstral = (codePoint: number): number => {
  const known = astralKinds.get(codePoint)
  if (known !== undefined) return known
  const kind = /^[\p{L}\p{N}]$/u.test(String.fromCodePoint(codePoint)) ? Kind.Letter : Kind.Other
  astralKinds.set(codePoint, kind)
  return kind
}
// The kinds a folding scan reads: a unit's kind once it is known to fold to itself.
const foldingKinds = new Uint8Array(0x10000).fill(Kind.Unclassified)
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

// Flags the scan sets besides the word kinds, and the gap flags: literals in its loop (see Kind).
const enum Flag {
  Triple = 8,
  Astral = 32,
  PhraseGap = 1,
  JoinGap = 2,
  SpacedGap = 4
}

// Word flags.
export const hasDigit: number = Kind.Digit
export const hasSymbol: number = Kind.Symbol
export const hasLetter: number = Kind.Letter
/** Three or more of the same UTF-16 unit in a row (letters outside the BMP, whose units alternate, never count). */
export const hasTriple: number = Flag.Triple
/** A letter or digit outside the Basic Multilingual Plane (a surrogate pair). */
export const hasAstral: number = Flag.Astral

// Gap flags, for the gap after a word.
/** The words around it may belong to one multi-word term: no sentence end between them. */
export const phraseGap: number = Flag.PhraseGap
/** The words around it are fragments of one word ("b.a.d", "sh-it"): short joiner punctuation, no space. */
export const joinGap: number = Flag.JoinGap
/** Single letters around it are read together ("b a d"): a short run of spaces or joiners. */
export const spacedGap: number = Flag.SpacedGap

// FNV-1a over UTF-16 units: words are hashed while scanned, so a word can be looked up in a hash
// table without ever becoming a string.
const enum Fnv {
  Seed = -2128831035, // 0x811c9dc5 as a signed 32-bit integer
  Prime = 0x01000193
}
export const fnvSeed: number = Fnv.Seed
export const fnvPrime: number = Fnv.Prime

/** The FNV-1a hash of text[start, end): the hash the scan gives a word spelled so. */
export const hashOf = (text: string, start = 0, end = text.length): number => {
  let hash = fnvSeed
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ text.charCodeAt(index), fnvPrime)
  return hash
}

/**
 * A filter of 32-bit hashes: mayHold is false for a hash none of them has, true for theirs (and for
 * about one other hash in 32). Words that start no term and have no stem in the lexicon are the
 * most common by far: each costs one bit test, a branch that is almost always not taken.
 */
export interface HashFilter {
  readonly bits: Int32Array
  readonly mask: number
}

export const hashFilter = (hashes: ReadonlyArray<number>): HashFilter => {
  let size = 1024
  while (size < hashes.length * 32) size *= 2
  const mask = size - 1
  const bits = new Int32Array(size >>> 5)
  for (const hash of hashes) bits[(hash & mask) >>> 5]! |= 1 << (hash & 31)
  return { bits, mask }
}

export const mayHold = (filter: HashFilter, hash: number): boolean =>
  (filter.bits[(hash & filter.mask) >>> 5]! & (1 << (hash & 31))) !== 0

/**
 * The words of one text, in order. The arrays are shared by every scan (only `count` entries are
 * this text's): read a scan before the next one starts. Matching and scoring are synchronous, so
 * they always do.
 */
export interface Words {
  /** The folded text: spelled out on first read when the scan folded units as it read them (see unitAt). */
  readonly text: string
  /** The text the scan read: the folded text, or (folds) the lower-cased text whose non-ASCII units fold as read. */
  readonly source: string
  readonly folds: boolean
  readonly count: number
  readonly starts: Int32Array
  readonly ends: Int32Array
  readonly hashes: Int32Array
  readonly flags: Uint8Array
  /** Gap flags of the gap after each word. */
  readonly gaps: Uint8Array
}

/**
 * The unit at `index` of the folded text, read from the scanned text: the few words of a caption
 * that meet a term or a stem are read unit by unit, and its whole folded text is never spelled
 * out for them.
 */
export const unitAt = (words: Words, index: number): number => {
  const unit = words.source.charCodeAt(index)
  return words.folds && unit >= 0x80 ? foldedUnit(unit) : unit
}

const nonAsciiUnit = /[\u0080-\uffff]/g
const foldUnits = (lower: string): string =>
  lower.replace(nonAsciiUnit, (unit) => String.fromCharCode(foldedUnit(unit.charCodeAt(0))))

/** words.text.slice(start, end), spelled from the scanned text. */
export const sliceOf = (words: Words, start: number, end: number): string => {
  const slice = words.source.slice(start, end)
  return words.folds ? foldUnits(slice) : slice
}

/** A scan's words: the folded text is spelled out only when something reads it whole. */
class ScannedWords implements Words {
  private folded: string | undefined = undefined
  constructor(
    readonly source: string,
    readonly folds: boolean,
    readonly count: number,
    readonly starts: Int32Array,
    readonly ends: Int32Array,
    readonly hashes: Int32Array,
    readonly flags: Uint8Array,
    readonly gaps: Uint8Array
  ) {}
  get text(): string {
    return (this.folded ??= this.folds ? foldUnits(this.source) : this.source)
  }
}

// Allocating fresh typed arrays per check cost more in garbage collection than the matching itself:
// one set of buffers, grown when a longer text comes, serves every scan.
let buffers = {
  starts: new Int32Array(0),
  ends: new Int32Array(0),
  hashes: new Int32Array(0),
  flags: new Uint8Array(0),
  gaps: new Uint8Array(0)
}

// Whether the folding scan under way met a unit that folds to another.
let changed = false
// The low unit of the last surrogate pair read, and the kind of its character.
let pairedLow = -1
let pairedKind = 0

// What closerLook answers: the unit read in place of the one in the text (the unit it folds to)
// and its kind, and whether it is the second half of a letter outside the BMP; -1 when a folding
// scan meets a unit that folds to more or fewer units than one, or a surrogate.
const kindShift = 16
const astralBit = 1 << 24
const unitMask = 0xffff
const kindMask = 0xff

/**
 * The unit and kind to read at text[index], a unit whose kind (in the table the scan reads) is not
 * a plain one: not classified yet, a surrogate, or (folding) a unit that folds to another. Rare
 * (the first sight of a character, non-ASCII text), so kept out of the scan's loops.
 */
const closerLook = (text: string, index: number, folding: boolean): number => {
  const unit = text.charCodeAt(index)
  let code = unit
  if (folding) {
    const folded = foldedUnit(unit)
    if (folded < 0) return -1
    if (folded !== unit) {
      changed = true
      code = folded
    }
  }
  let kind: number = bmpKinds[code]!
  if (kind === Kind.Unclassified) kind = classifyUnit(code)
  if (folding && code === unit) foldingKinds[unit] = kind
  let astral = 0
  if (kind === Kind.HighSurrogate) {
    // A high surrogate with no low one after it is no character: it separates words.
    if (index + 1 < text.length && isLowSurrogate(text.charCodeAt(index + 1))) {
      pairedLow = index + 1
      pairedKind = kindOfAstral(text.codePointAt(index)!)
      kind = pairedKind
    } else kind = Kind.Other
  } else if (kind === Kind.LowSurrogate) {
    // The second half of a letter or digit continues its word; a lone low surrogate separates.
    kind = pairedLow === index ? pairedKind : Kind.Other
    if (kind < Kind.WordBelow) astral = astralBit
  }
  return astral | (kind << kindShift) | code
}

/**
 * Scans `text` for words. Folding, `text` is lower-cased text and each non-ASCII unit is read as
 * the one unit it folds to, so the words are those of the folded text (Words.text); null when a
 * unit folds to more or fewer units than one, or is a surrogate (the text is then folded first).
 *
 * Two tight loops take turns, one over the units between words, one over a word's units, so the
 * common unit costs a table read and a branch or two; anything else goes to closerLook.
 */
const scan = (text: string, folding: boolean): Words | null => {
  // Words are separated by at least one character, so there are at most this many.
  const capacity = (text.length >> 1) + 1
  if (buffers.starts.length < capacity) {
    const size = Math.max(capacity, buffers.starts.length * 2)
    buffers = {
      starts: new Int32Array(size),
      ends: new Int32Array(size),
      hashes: new Int32Array(size),
      flags: new Uint8Array(size),
      gaps: new Uint8Array(size)
    }
  }
  const { ends, flags, gaps, hashes, starts } = buffers
  const kinds = folding ? foldingKinds : bmpKinds
  const length = text.length
  changed = false
  pairedLow = -1
  let count = 0
  let index = 0
  // The kinds of the separators since the last word, OR-ed, and where that word ended.
  let gapKinds = 0
  let lastEnd = 0
  while (index < length) {
    let code = text.charCodeAt(index)
    let kind: number = kinds[code]!
    let astral = 0
    if (kind >= Kind.HighSurrogate) {
      const looked = closerLook(text, index, folding)
      if (looked < 0) return null
      code = looked & unitMask
      kind = (looked >>> kindShift) & kindMask
      astral = looked & astralBit
    }
    if (kind >= Kind.WordBelow) {
      gapKinds |= kind
      index++
      continue
    }
    // A word starts here: the gap before it is complete.
    if (count > 0) {
      const short = index - lastEnd <= Gap.MaxJoinable
      const join = short && (gapKinds & (Gap.Space | Gap.Other)) === 0
      gaps[count - 1] = (join || (gapKinds & Gap.SentenceEnd) === 0 ? Flag.PhraseGap : 0) | (join ? Flag.JoinGap : 0) |
        (short && (gapKinds & Gap.Other) === 0 ? Flag.SpacedGap : 0)
    }
    const start = index
    let hash = Math.imul(Fnv.Seed ^ code, Fnv.Prime)
    let wordFlags = kind | (astral === 0 ? 0 : Flag.Astral)
    let previous = code
    let repeats = 0
    for (index++; index < length; index++) {
      code = text.charCodeAt(index)
      kind = kinds[code]!
      if (kind >= Kind.HighSurrogate) {
        const looked = closerLook(text, index, folding)
        if (looked < 0) return null
        code = looked & unitMask
        kind = (looked >>> kindShift) & kindMask
        if ((looked & astralBit) !== 0) wordFlags |= Flag.Astral
      }
      if (kind >= Kind.WordBelow) break
      hash = Math.imul(hash ^ code, Fnv.Prime)
      wordFlags |= kind
      if (code !== previous) {
        previous = code
        repeats = 0
      } else if (++repeats === 2) wordFlags |= Flag.Triple
    }
    starts[count] = start
    ends[count] = index
    hashes[count] = hash
    flags[count++] = wordFlags
    lastEnd = index
    // The unit that ended the word (if any) is the gap's first separator.
    gapKinds = index < length ? kind : 0
    index++
  }
  if (count > 0) gaps[count - 1] = 0
  return new ScannedWords(text, changed, count, starts, ends, hashes, flags, gaps)
}

// The banned-word matcher and the built-in classifier read the same text one after the other: the
// last scan is remembered (it stays valid until the next scan reuses the buffers), with the text
// it was folded from when foldedWords made it.
let last: Words | null = null
let lastSource: string | null = null
let lastOffsetsKept = false

/** The words of a folded text (see Words). */
export const wordsOfFolded = (folded: string): Words => {
  // A folding scan's words are not compared: that would spell their text out.
  if (last !== null && !last.folds && last.source === folded) return last
  last = scan(folded, false)!
  lastSource = null
  return last
}

/** A text's folded words (Words.text is foldText of the text), and whether offsets survived folding. */
export interface FoldedWords {
  readonly words: Words
  /** Every character folded to one UTF-16 unit: an offset into words.text is the same offset into the text. */
  readonly offsetsKept: boolean
}

/**
 * The words of foldText(text): folding and scanning in one pass over the lower-cased text when
 * every character folds to one unit (ASCII, accented and full-width letters), else the text is
 * folded first and then scanned.
 */
export const foldedWords = (text: string): FoldedWords => {
  if (last !== null && lastSource === text) return { words: last, offsetsKept: lastOffsetsKept }
  const lower = text.toLowerCase()
  // Lower-casing that changes the length (İ → i̇) moves offsets: folded first then.
  const inOnePass = lower.length === text.length ? scan(lower, true) : null
  last = inOnePass ?? scan(foldText(text), false)!
  lastSource = text
  lastOffsetsKept = inOnePass !== null
  return { words: last, offsetsKept: lastOffsetsKept }
}
