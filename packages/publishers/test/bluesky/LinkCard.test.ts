import { describe, expect, it } from "@effect/vitest"
import { pageSummary } from "../../src/bluesky/LinkCard.js"

const page = "https://example.com/news/spring?id=7"

describe("Link card summaries", () => {
  it("prefers OpenGraph, in either attribute order, decoding entities and folding whitespace", () => {
    const html = `<title>Plain</title><meta content="Caf&#233; &amp; b&#xE9;b&#xE9;s" property="og:title">
      <meta name="description" content="  two
      lines "><meta property="og:image" content="../img/cover.png?w=1&amp;h=2">`
    expect(pageSummary(html, page)).toEqual({
      title: "Café & bébés",
      description: "two lines",
      image: "https://example.com/img/cover.png?w=1&h=2"
    })
  })

  it("falls back to the page title, and to nothing", () => {
    expect(pageSummary("<html><title> The page </title></html>", page)).toEqual({ title: "The page", description: null, image: null })
    expect(pageSummary("<p>no head</p>", page)).toEqual({ title: null, description: null, image: null })
  })

  it("takes no image that is not on http(s)", () => {
    expect(pageSummary(`<meta property="og:image" content="data:image/png;base64,AAAA">`, page).image).toBeNull()
  })

  it("cuts an overlong description", () => {
    const summary = pageSummary(`<meta property="og:description" content="${"a".repeat(2000)}">`, page)
    expect(summary.description).toHaveLength(1000)
    expect(summary.description!.endsWith("…")).toBe(true)
  })
})
