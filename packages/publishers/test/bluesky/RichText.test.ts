import { describe, expect, it } from "@effect/vitest"
import { candidates, facets, firstLink, mentionedHandles } from "../../src/bluesky/RichText.js"

/** The text a facet covers, cut out of the UTF-8 bytes as Bluesky reads it. */
const covered = (text: string, slice: { byteStart: number; byteEnd: number }) =>
  Buffer.from(text, "utf8").subarray(slice.byteStart, slice.byteEnd).toString("utf8")

describe("Bluesky rich-text facets", () => {
  const text = "Grüße 👨‍👩‍👧 from @alice.test: see https://example.com/a?b=1. #Café (https://x.test/p) #2024 #ok!"
  const found = candidates(text)

  it("finds links, mentions and hashtags at their UTF-8 byte offsets", () => {
    expect(found.map((candidate) => [candidate.kind, covered(text, candidate.slice)])).toEqual([
      ["mention", "@alice.test"],
      ["link", "https://example.com/a?b=1"],
      ["tag", "#Café"],
      ["link", "https://x.test/p"],
      ["tag", "#ok"]
    ])
    // "Grüße " is 8 bytes, the family emoji 18, " from " 6: the mention starts at byte 32.
    expect(found[0]!.slice).toEqual({ byteStart: 32, byteEnd: 43 })
  })

  it("keeps sentence punctuation and an unopened parenthesis out of links, and skips all-digit tags", () => {
    expect(found.flatMap((candidate) => candidate.kind === "link" ? [candidate.uri] : [])).toEqual([
      "https://example.com/a?b=1",
      "https://x.test/p"
    ])
    expect(found.flatMap((candidate) => candidate.kind === "tag" ? [candidate.tag] : [])).toEqual(["Café", "ok"])
  })

  it("turns resolved mentions into DIDs and leaves unresolved ones as text", () => {
    expect(mentionedHandles(found)).toEqual(["alice.test"])
    const withDid = facets(found, new Map([["alice.test", "did:plc:alice"]]))
    expect(withDid[0]!.features).toEqual([{ $type: "app.bsky.richtext.facet#mention", did: "did:plc:alice" }])
    expect(facets(found, new Map()).some((facet) => facet.features[0]!.$type === "app.bsky.richtext.facet#mention")).toBe(false)
  })

  it("does not read a mention or a tag inside a link, nor an email address as a mention", () => {
    const inside = candidates("https://example.com/@bob.test/#frag and mail@bob.test")
    expect(inside.map((candidate) => candidate.kind)).toEqual(["link"])
    expect(firstLink(inside)).toBe("https://example.com/@bob.test/#frag")
  })

  it("finds nothing in plain text", () => {
    expect(candidates("plain words, no links — 🙂 https://[oops")).toEqual([])
    expect(firstLink([])).toBeNull()
  })
})
