/**
 * Text folding shared by banned terms and their targets, so that both sides are compared in
 * the same form: NFKD (full-width and compatibility letters become plain ones), lower case,
 * then diacritics stripped (é → e) and invisible format characters removed (zero-width space,
 * zero-width joiner, soft hyphen), which are a cheap way to split a word without showing it.
 */

// Letters that carry no combining mark to strip but are read as a plain Latin spelling.
const plainSpelling: Record<string, string> = {
  "ß": "ss",
  "æ": "ae",
  "œ": "oe",
  "ø": "o",
  "ł": "l",
  "đ": "d",
  "ð": "d",
  "þ": "th",
  "ı": "i",
  "ς": "σ"
}
const plainSpellingPattern = /[ßæœøłđðþıς]/g
const marksAndFormatCharacters = /[\p{M}\p{Cf}]+/gu
// Nothing in printable ASCII changes under NFKD or has a mark to strip: the common case stays cheap.
const printableAscii = /^[\x20-\x7e\t\n\r]*$/

// Compatibility decomposition and case folding work character by character once the marks they
// produce are stripped, so each non-ASCII character is folded once and remembered: folding a
// 10,000-character caption then costs a table look-up per character, not a Unicode pass.
const foldedBmp = new Array<string | undefined>(0x10000)
const foldedAstral = new Map<number, string>()

const foldCharacter = (char: string): string =>
  char
    .normalize("NFKD")
    .toLowerCase()
    .normalize("NFKD")
    .replace(marksAndFormatCharacters, "")
    .replace(plainSpellingPattern, (letter) => plainSpelling[letter] ?? letter)

const foldCodePoint = (codePoint: number): string => {
  if (codePoint < 0x10000) return (foldedBmp[codePoint] ??= foldCharacter(String.fromCharCode(codePoint)))
  const known = foldedAstral.get(codePoint)
  if (known !== undefined) return known
  const folded = foldCharacter(String.fromCodePoint(codePoint))
  foldedAstral.set(codePoint, folded)
  return folded
}

// Per UTF-16 unit of lower-cased text: the one unit it folds to (0 not yet known, 0xffff when it
// folds to no unit, to several, or to a surrogate, and for surrogates themselves).
const notOneUnit = 0xffff
const foldedUnits = new Uint16Array(0x10000).fill(notOneUnit, 0xd800, 0xe000)

/**
 * The one UTF-16 unit foldText makes of a unit of lower-cased text (the same unit for ASCII), or
 * -1 when it makes more or fewer, or a surrogate: then the text is folded as a whole (foldText).
 */
export const foldedUnit = (unit: number): number => {
  if (unit < 0x80) return unit
  let folded = foldedUnits[unit]!
  if (folded === 0) {
    const spelled = foldCodePoint(unit)
    const first = spelled.charCodeAt(0)
    folded = spelled.length === 1 && (first < 0xd800 || first >= 0xe000) ? first : notOneUnit
    foldedUnits[unit] = folded
  }
  return folded === notOneUnit ? -1 : folded
}

const foldRun = (run: string): string => {
  let folded = ""
  for (const char of run) folded += foldCodePoint(char.codePointAt(0)!)
  return folded
}
const nonAsciiRun = /[^\x20-\x7e\t\n\r]+/g

// The banned-word matcher and the built-in classifier fold the same text one after the other: the
// last text folded is remembered, so the second fold is a comparison.
let lastText = ""
let lastFolded = ""

/** Case-, accent- and compatibility-folded text (é → e, ｂ → b, ﬁ → fi, zero-width space → nothing). */
export const foldText = (text: string): string => {
  if (text === lastText) return lastFolded
  const folded = printableAscii.test(text) ? text.toLowerCase() : text.toLowerCase().replace(nonAsciiRun, foldRun)
  lastText = text
  lastFolded = folded
  return folded
}

/** Lighter folding for URLs: domains keep their accents (they are different domains). */
export const foldForLinks = (text: string): string =>
  printableAscii.test(text) ? text.toLowerCase() : text.normalize("NFKC").toLowerCase().replace(/\p{Cf}+/gu, "")

// How many UTF-16 units foldText makes of one code point (lower-cased, then folded), remembered.
const foldedLengths = new Map<number, number>()
const foldedLength = (codePoint: number): number => {
  if (codePoint < 0x80) return 1
  let length = foldedLengths.get(codePoint)
  if (length === undefined) {
    length = foldText(String.fromCodePoint(codePoint)).length
    foldedLengths.set(codePoint, length)
  }
  return length
}

const nonAscii = /[\u0080-\uffff]/g

/**
 * Maps a UTF-16 offset of foldText(text) (or its end) to the offset in `text` of the character it
 * came from: so a match found in the folded text is shown where it stands in the text as written.
 * Null when folding character by character does not give foldText's length (it always does today;
 * the check keeps a wrong span from ever being reported).
 *
 * ASCII folds to one unit each, so only the non-ASCII characters are visited: each is a point
 * where the two texts may drift apart, and an offset is mapped by finding the last point before it.
 */
export const originalOffsets = (text: string): ((folded: number) => number) | null => {
  if (printableAscii.test(text)) return (folded) => folded
  const total = foldText(text).length
  // Per non-ASCII character: where its folding starts in the folded text and in the text, and how
  // many units it takes in each.
  const foldedAt: Array<number> = []
  const originalAt: Array<number> = []
  const foldedUnits: Array<number> = []
  const originalUnits: Array<number> = []
  let drift = 0
  nonAscii.lastIndex = 0
  for (let match = nonAscii.exec(text); match !== null; match = nonAscii.exec(text)) {
    const index = match.index
    const codePoint = text.codePointAt(index)!
    const units = codePoint > 0xffff ? 2 : 1
    const length = foldedLength(codePoint)
    foldedAt.push(index + drift)
    originalAt.push(index)
    foldedUnits.push(length)
    originalUnits.push(units)
    drift += length - units
    nonAscii.lastIndex = index + units
  }
  if (text.length + drift !== total) return null
  return (folded) => {
    // The last non-ASCII character whose folding starts at or before the offset.
    let low = 0
    let high = foldedAt.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (foldedAt[middle]! <= folded) low = middle + 1
      else high = middle
    }
    if (low === 0) return folded
    const point = low - 1
    const past = folded - foldedAt[point]! - foldedUnits[point]!
    return past < 0 ? originalAt[point]! : originalAt[point]! + originalUnits[point]! + past
  }
}
