/**
 * Rich-text facets of an app.bsky.feed.post: links, mentions and hashtags found in the text, each
 * as a UTF-8 byte range (https://docs.bsky.app/docs/advanced-guides/post-richtext). The patterns
 * follow @atproto/api's RichText.detectFacets, so a post reads the same as one written in the app.
 */

/** A byte range of the UTF-8 text: byteEnd exclusive. */
export interface ByteSlice {
  readonly byteStart: number
  readonly byteEnd: number
}

export type FacetFeature =
  | { readonly $type: "app.bsky.richtext.facet#link"; readonly uri: string }
  | { readonly $type: "app.bsky.richtext.facet#mention"; readonly did: string }
  | { readonly $type: "app.bsky.richtext.facet#tag"; readonly tag: string }

export interface Facet {
  readonly index: ByteSlice
  readonly features: ReadonlyArray<FacetFeature>
}

/** A span of the text that may become a facet; mentions wait for their handle's DID. */
export type Candidate =
  | { readonly kind: "link"; readonly slice: ByteSlice; readonly uri: string }
  | { readonly kind: "mention"; readonly slice: ByteSlice; readonly handle: string }
  | { readonly kind: "tag"; readonly slice: ByteSlice; readonly tag: string }

const encoder = new TextEncoder()
const utf8Length = (text: string): number => encoder.encode(text).length

const sliceOf = (text: string, start: number, end: number): ByteSlice => ({
  byteStart: utf8Length(text.slice(0, start)),
  byteEnd: utf8Length(text.slice(0, end))
})

// A handle is a domain name: labels of letters, digits and hyphens, at least two of them.
const handlePattern = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/
const mentionPattern = /(^|\s|\()(@)([a-zA-Z0-9.-]+)(\b)/g
const linkPattern = /(^|\s|\()(https?:\/\/\S+)/gi
// A tag ends at whitespace or an invisible character: soft hyphen, word joiner, zero-width
// spaces and joiners, the combining keycap. They are listed one by one, not as a sequence.
// eslint-disable-next-line no-misleading-character-class
const tagPattern = /(^|\s)[#＃]((?!\ufe0f)[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]+[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*)?/gu
const maxTagLength = 64

/** Trailing punctuation belongs to the sentence, not the link; a closing parenthesis only when unopened. */
const trimLink = (uri: string): string => {
  let trimmed = uri
  for (;;) {
    if (/[.,;:!?"']$/.test(trimmed)) trimmed = trimmed.slice(0, -1)
    else if (trimmed.endsWith(")") && !trimmed.includes("(")) trimmed = trimmed.slice(0, -1)
    else return trimmed
  }
}

const links = (text: string): Array<Candidate> =>
  Array.from(text.matchAll(linkPattern)).flatMap((match) => {
    const uri = trimLink(match[2]!)
    if (!URL.canParse(uri)) return []
    const start = match.index + match[1]!.length
    return [{ kind: "link" as const, slice: sliceOf(text, start, start + uri.length), uri }]
  })

const mentions = (text: string): Array<Candidate> =>
  Array.from(text.matchAll(mentionPattern)).flatMap((match) => {
    const handle = match[3]!.replace(/[.-]+$/, "")
    if (!handlePattern.test(handle)) return []
    const start = match.index + match[1]!.length
    return [{ kind: "mention" as const, slice: sliceOf(text, start, start + 1 + handle.length), handle: handle.toLowerCase() }]
  })

const tags = (text: string): Array<Candidate> =>
  Array.from(text.matchAll(tagPattern)).flatMap((match) => {
    if (match[2] === undefined) return []
    const tag = match[2].trim().replace(/\p{P}+$/gu, "")
    if (tag.length === 0 || tag.length > maxTagLength) return []
    const start = match.index + match[1]!.length
    return [{ kind: "tag" as const, slice: sliceOf(text, start, start + 1 + tag.length), tag }]
  })

/** Every link, mention and hashtag in the text, in the order they appear. */
export const candidates = (text: string): ReadonlyArray<Candidate> =>
  [...links(text), ...mentions(text), ...tags(text)]
    // A mention or tag inside a link (https://host/@name, https://host/#anchor) belongs to the link.
    .filter((candidate, _, all) =>
      candidate.kind === "link" ||
      !all.some((other) =>
        other.kind === "link" && other.slice.byteStart <= candidate.slice.byteStart && candidate.slice.byteEnd <= other.slice.byteEnd
      )
    )
    .sort((a, b) => a.slice.byteStart - b.slice.byteStart)

/**
 * The facets of the candidates, with each mention's DID from `dids` (handle → DID); a mention whose
 * handle did not resolve stays plain text, as it does in the Bluesky app.
 */
export const facets = (found: ReadonlyArray<Candidate>, dids: ReadonlyMap<string, string>): ReadonlyArray<Facet> =>
  found.flatMap((candidate): Array<Facet> => {
    switch (candidate.kind) {
      case "link":
        return [{ index: candidate.slice, features: [{ $type: "app.bsky.richtext.facet#link", uri: candidate.uri }] }]
      case "tag":
        return [{ index: candidate.slice, features: [{ $type: "app.bsky.richtext.facet#tag", tag: candidate.tag }] }]
      case "mention": {
        const did = dids.get(candidate.handle)
        return did === undefined ? [] : [{ index: candidate.slice, features: [{ $type: "app.bsky.richtext.facet#mention", did }] }]
      }
    }
  })

/** The handles the text mentions, each once. */
export const mentionedHandles = (found: ReadonlyArray<Candidate>): ReadonlyArray<string> =>
  Array.from(new Set(found.flatMap((candidate) => candidate.kind === "mention" ? [candidate.handle] : [])))

/** The first link of the text, for a link card. */
export const firstLink = (found: ReadonlyArray<Candidate>): string | null =>
  found.find((candidate) => candidate.kind === "link")?.uri ?? null
