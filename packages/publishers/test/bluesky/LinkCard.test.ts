import { describe, expect, it } from "@effect/vitest"
import { pageSummary } from "../../src/bluesky/LinkCard.js"

describe("Link card summaries", () => {
  it("prefers OpenGraph, in either attribute order, decoding entities and folding whitespace", () => {
    const html = `<title>Plain</title><meta content="Caf&eacute; &amp; b&#233;b&#xE9;s" property="og:title">
      <meta name="description" content="  two
      lines ">`
    expect(pageSummary(html)).toEqual({ title: "Caf&eacute; & bébés", description: "two lines" })
  })

  it("falls back to the page title, and to nothing", () => {
    expect(pageSummary("<html><title> The page </title></html>")).toEqual({ title: "The page", description: null })
    expect(pageSummary("<p>no head</p>")).toEqual({ title: null, description: null })
  })

  it("cuts an overlong description", () => {
    const summary = pageSummary(`<meta property="og:description" content="${"a".repeat(2000)}">`)
    expect(summary.description).toHaveLength(1000)
    expect(summary.description!.endsWith("…")).toBe(true)
  })
})
