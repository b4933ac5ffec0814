import { textLength } from "../CaptionSignature.js"
import type { Platform } from "../Platform.js"
import { xTopLevelDomains } from "./xTopLevelDomains.js"

/*
 * How each network counts a caption against its ceiling. Free of effect (type imports aside), so
 * the dashboard counts with these same functions as the composer's user types.
 */

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" })

/** Bluesky counts user-perceived characters (a flag or a family emoji is one), not code points. */
export const graphemeLength = (text: string): number => {
  let count = 0
  for (const _ of graphemes.segment(text)) count++
  return count
}

/** How YouTube counts a description: UTF-8 bytes (code points below U+0080 take 1, below U+0800 2, below U+10000 3, others 4). */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (const character of text) {
    const point = character.codePointAt(0)!
    bytes += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4
  }
  return bytes
}

/**
 * X's weighted length (docs.x.com "Counting characters", twitter-text 3.1.0's parseTweet, checked
 * against it in test/platforms/XLength.test.ts): the text NFC-normalised; a link costs 23 whatever
 * its length (t.co); an emoji, with its modifiers and joiners, costs 2; any other code point costs 1
 * in the ranges below and 2 elsewhere (CJK, most other scripts, astral characters).
 */
const weights = {
  link: 23,
  emoji: 2,
  light: 1,
  heavy: 2,
  lightRanges: [[0x0000, 0x10FF], [0x2000, 0x200D], [0x2010, 0x201F], [0x2032, 0x2037]] as const
}

/** Latin letters with accents, which X takes in domains and paths alike (twitter-text's latinAccentChars). */
const accented = String.raw`\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u0100-\u024f\u0253\u0254\u0256\u0257\u0259\u025b\u0263\u0268\u026f\u0272\u0289\u028b\u02bb\u0300-\u036f\u1e00-\u1eff`
// Paths also take Cyrillic letters.
const pathChar = String.raw`[a-z0-9!*';:=+,.$/%#\[\]\-\u2013_~|&@${accented}\u0400-\u04ff]`
const pathEnd = String.raw`[+\-a-z0-9=_#/${accented}\u0400-\u04ff]`
// Longest first, so that `.community` is not read as `.com`.
const topLevelDomain = [...xTopLevelDomains].sort((a, b) => b.length - a.length).join("|")
const parens = String.raw`\((?:${pathChar}+|\(${pathChar}+\))\)`
const tldEnd = String.raw`(?:${topLevelDomain}|xn--[a-z0-9-]+)(?![0-9a-z@+-])`
/** What may make up a domain label: anything but ASCII punctuation, spaces and invisible marks. */
const domainChar = String.raw`[^!-/:-@\[-\u0060{-~\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufffe\ufeff\uffff\u202a-\u202e\u200e\u200f\u061c\u2066-\u2069]`
/**
 * A link as X finds one: an optional http(s) scheme, dotted labels ending in a top-level domain X
 * knows, then a port, path and query that stop before trailing punctuation; never right after a
 * letter, digit, @, $ or #, nor, without a scheme, after - _ . or /. As in X's pattern, a
 * character that may stand before a link is taken as standing before it before the start of the
 * text is: a text opening with "üexample.com" links "example.com". A path's piece ends in an
 * ending character or is a bracketed group alone, as X's pattern reads (its alternatives spliced
 * in unbracketed): "b.io/x.(a)b" is one link, "b.io/x.(a)" links "b.io/x".
 */
const linkPattern = new RegExp(
  String.raw`([^a-z0-9@$#\uff20\uff03\u202a-\u202e]|^)(https?://)?((?:(?:${domainChar}(?:[_-]|${domainChar})*)?${domainChar}\.)*(?:${domainChar}(?:-|${domainChar})*)?${domainChar}\.${tldEnd})` +
    String.raw`(?::\d+)?(/(?:${pathChar}*(?:${parens}${pathChar}*)*${pathEnd}|${parens}|@${pathChar}+/)*)?` +
    String.raw`(?:\?[a-z0-9!?*'();:&=+$/%#\[\]\-_.,~|@]*[a-z0-9\-_&=#/])?`,
  "gi"
)
/** Without a scheme, only the ASCII (and accented Latin) domains inside what looked like one are links. */
const bareDomain = new RegExp(String.raw`(?:[-a-z0-9${accented}]+\.)+${tldEnd}`, "gi")

/** RFC 3492's parameters, for the length of a label's punycode (DNS allows 63 characters). */
const punycode = { base: 36, tMin: 1, tMax: 26, skew: 38, damp: 700, initialBias: 72, initialN: 128 }

const adaptBias = (delta: number, points: number, first: boolean): number => {
  const { base, damp, skew, tMax, tMin } = punycode
  let scaled = first ? Math.floor(delta / damp) : delta >> 1
  scaled += Math.floor(scaled / points)
  let k = 0
  while (scaled > ((base - tMin) * tMax) >> 1) {
    scaled = Math.floor(scaled / (base - tMin))
    k += base
  }
  return k + Math.floor(((base - tMin + 1) * scaled) / (scaled + skew))
}

/** How long a domain label is once in ASCII: itself, or `xn--` and its punycode (RFC 3492's encoder, counting). */
const asciiLabelLength = (label: string): number => {
  const codes = Array.from(label, (char) => char.codePointAt(0)!)
  const basic = codes.filter((code) => code < 0x80).length
  if (basic === codes.length) return basic
  const { base, initialBias, initialN, tMax, tMin } = punycode
  let length = 4 + basic + (basic > 0 ? 1 : 0)
  let n = initialN
  let delta = 0
  let bias = initialBias
  for (let handled = basic; handled < codes.length; n++) {
    const next = Math.min(...codes.filter((code) => code >= n))
    delta += (next - n) * (handled + 1)
    n = next
    for (const code of codes) {
      if (code < n) delta++
      if (code !== n) continue
      for (let q = delta, k = base;; k += base) {
        const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
        length++
        if (q < t) break
        q = Math.floor((q - t) / (base - t))
      }
      bias = adaptBias(delta, handled + 1, handled === basic)
      delta = 0
      handled++
    }
    delta++
  }
  return length
}

/**
 * Whether X takes what looked like a link's domain (twitter-text's isValidUrl): every label 1 to 63
 * characters once in ASCII, an `xn--` domain holding an ASCII domain, and the link, with https://
 * when it has no scheme and its domain in ASCII, at most 4,096 characters.
 */
const validLink = (url: string, scheme: string | undefined, domain: string): boolean => {
  if (domain.startsWith("xn--") && domain.match(bareDomain) === null) return false
  let asciiDomain = 0
  for (const label of domain.split(".")) {
    const length = asciiLabelLength(label)
    if (length < 1 || length > 63) return false
    asciiDomain += length + 1
  }
  return (scheme ?? "https://").length + url.length - domain.length + asciiDomain - 1 <= 4096
}

/** Where the links of a text are, as [start, end) ranges in order. */
const links = (text: string): ReadonlyArray<readonly [number, number]> =>
  Array.from(text.matchAll(linkPattern)).flatMap((match): ReadonlyArray<readonly [number, number]> => {
    // The character before a link is part of the match, as in X's own pattern: a link cannot
    // start right where the previous one ended. Like X's, the pattern reads UTF-16 units (no u
    // flag), so half of an astral character can stand before a link or inside a domain.
    const [whole, before, scheme, domain, path] = match
    const start = match.index + before!.length
    const end = match.index + whole.length
    if (!validLink(whole.slice(before!.length), scheme, domain!)) return []
    if (scheme !== undefined) return [[start, end]]
    if (/[-_./]/.test(before!)) return []
    const found = Array.from(domain!.matchAll(bareDomain), (inner): [number, number] => [start + inner.index, start + inner.index + inner[0].length])
    // A path (and the query after it) belongs to the last domain found; a query alone does not.
    if (found.length > 0 && path !== undefined) found[found.length - 1]![1] = end
    return found
  })

/**
 * The emoji sequence a grapheme starts with: a flag, a keycap, or a pictograph with its variation
 * selector, skin tone and tags, and the pictographs joined to it. What follows it in the grapheme
 * (a combining mark, say) is counted on its own.
 */
const emojiSequence =
  /^(?:\p{Regional_Indicator}{2}|[0-9#*]\ufe0f?\u20e3|\p{Extended_Pictographic}(?:\ufe0f|\p{Emoji_Modifier}|[\u{E0020}-\u{E007F}])*(?:\u200d\p{Extended_Pictographic}(?:\ufe0f|\p{Emoji_Modifier})*)*)/u

const codePointWeight = (char: string): number => {
  const code = char.codePointAt(0)!
  return weights.lightRanges.some(([from, to]) => code >= from && code <= to) ? weights.light : weights.heavy
}

const plainWeight = (text: string): number => {
  let total = 0
  for (const { segment } of graphemes.segment(text)) {
    const sequence = emojiSequence.exec(segment)?.[0] ?? ""
    const inSequence = Array.from(sequence)
    // An emoji sequence costs 2 in all; a lone code point weighs what its range says (a bare © is 1).
    total += inSequence.length > 1 ? weights.emoji : inSequence.reduce((sum, char) => sum + codePointWeight(char), 0)
    for (const char of Array.from(segment.slice(sequence.length))) total += codePointWeight(char)
  }
  return total
}

/** The length X counts a text at against its 280. */
export const xWeightedLength = (raw: string): number => {
  const text = raw.normalize("NFC")
  let total = 0
  let from = 0
  for (const [start, end] of links(text)) {
    total += plainWeight(text.slice(from, start)) + weights.link
    from = end
  }
  return total + plainWeight(text.slice(from))
}

/** Each platform's caption counter (its module's caption.length). */
export const captionLength: Record<Platform, (text: string) => number> = {
  x: xWeightedLength,
  bluesky: graphemeLength,
  youtube: utf8Length,
  instagram: textLength,
  facebook: textLength,
  threads: textLength,
  pinterest: textLength,
  tiktok: textLength,
  linkedin: textLength
}
