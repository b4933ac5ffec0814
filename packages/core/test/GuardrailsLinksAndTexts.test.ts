import { describe, expect, it } from "@effect/vitest"
import { checkLinks, extractLinks, type LinkSettings, normalizeDomain, outboundTexts } from "@herald/core"

const policy = (overrides: Partial<LinkSettings>): LinkSettings => ({
  allowed_domains: [],
  denied_domains: [],
  block_shorteners: false,
  max_links: null,
  ...overrides
})
const check = (text: string, settings: LinkSettings) => checkLinks([{ field: "caption", text }], settings).map((v) => v.detail)

describe("link extraction", () => {
  it.each([
    ["with a scheme", "see https://Example.com/path?q=1.", ["example.com"]],
    ["without a scheme", "visit shop.example.co.uk/sale now", ["shop.example.co.uk"]],
    ["www without a known TLD", "www.example.unknowntld", ["www.example.unknowntld"]],
    ["credentials and port dropped", "http://user:secret@Host.io:8080/x", ["host.io"]],
    ["full-width dot", "bit．ly/abc", ["bit.ly"]],
    ["several", "a.com and https://b.org, c.net/", ["b.org", "a.com", "c.net"]]
  ])("finds links %s", (_name, text, hosts) => {
    expect(extractLinks(text).map((link) => link.host)).toEqual(hosts)
  })

  it.each([
    ["abbreviations", "e.g. this, i.e. that, U.S. politics"],
    ["file names with non-TLD extensions", "edit index.js and main.ts"],
    ["e-mail addresses", "write to bob@example.com"],
    ["mentions", "thanks @example.com"],
    ["plain prose", "Hello world. Nice day."]
  ])("ignores %s", (_name, text) => {
    expect(extractLinks(text)).toEqual([])
  })

  it("never echoes credentials in a detail", () => {
    const details = check("http://admin:hunter2@evil.com/", policy({ denied_domains: ["evil.com"] }))
    expect(details).toEqual(["caption links to denied domain \"evil.com\""])
    expect(details.join()).not.toContain("hunter2")
  })
})

describe("link policy", () => {
  it("normalises configured domains", () => {
    expect(normalizeDomain(" https://WWW.Example.com/path ")).toBe("www.example.com")
    expect(normalizeDomain("*.example.com")).toBe("example.com")
    expect(normalizeDomain(".example.com.")).toBe("example.com")
  })

  it("denies a domain and its subdomains, not look-alikes", () => {
    const denied = policy({ denied_domains: ["evil.com"] })
    expect(check("go to evil.com", denied)).toEqual(["caption links to denied domain \"evil.com\""])
    expect(check("go to https://www.evil.com/x", denied)).toEqual(["caption links to denied domain \"www.evil.com\""])
    expect(check("go to notevil.com and evil.com.au", denied)).toEqual([])
  })

  it("allows only the allowed domains and their subdomains", () => {
    const allowed = policy({ allowed_domains: ["example.com"] })
    expect(check("example.com and blog.example.com", allowed)).toEqual([])
    expect(check("example.com and other.org", allowed)).toEqual(["caption links to \"other.org\", which is not an allowed domain"])
  })

  it("blocks the built-in shorteners when asked", () => {
    const text = "https://bit.ly/x t.co/y tinyurl.com/z https://example.com"
    expect(check(text, policy({ block_shorteners: false }))).toEqual([])
    expect(check(text, policy({ block_shorteners: true }))).toEqual([
      "caption links to the link shortener \"bit.ly\"",
      "caption links to the link shortener \"t.co\"",
      "caption links to the link shortener \"tinyurl.com\""
    ])
  })

  it("counts distinct links across the whole post against max_links", () => {
    const texts = [
      { field: "caption", text: "a.com/1 https://b.com" },
      { field: "platform_configurations.x.caption", text: "a.com/1 again" },
      { field: "signature", text: "c.com" }
    ]
    expect(checkLinks(texts, policy({ max_links: 3 }))).toEqual([])
    expect(checkLinks(texts, policy({ max_links: 2 }))).toEqual([
      { rule: "links", detail: "the post has 3 distinct links; at most 2 are allowed" }
    ])
    expect(checkLinks([{ field: "caption", text: "no links" }], policy({ max_links: 0 }))).toEqual([])
  })
})

describe("outboundTexts", () => {
  it("collects the caption, the signature and every text in platform_configurations, unknown keys included", () => {
    const texts = outboundTexts({
      caption: "Hello",
      signature: "— Team",
      platformConfigurations: {
        x: {
          caption: "Hi X",
          thread: ["one", "two", "three"],
          poll: { options: ["yes", "no"], duration_minutes: 60 },
          reply_settings: "everyone",
          placement: "timeline",
          custom_note: "unknown key",
          nested: { deep: [{ text: "deeper" }] }
        },
        threads: { gif_id: "https://giphy.com/gifs/abc", reply_control: "everyone", crosspost_ig_story: true, topic_tag: "news" },
        pinterest: { title: "Pin", board_ids: ["b1"], link: "https://example.com", is_ai_generated: false },
        tiktok: { privacy_status: "SELF_ONLY", is_brand_content: true },
        linkedin: { document_title: "Deck", organization_id: "123" }
      }
    })
    expect(texts).toEqual([
      { field: "caption", text: "Hello" },
      { field: "signature", text: "— Team" },
      { field: "platform_configurations.x.caption", text: "Hi X" },
      { field: "platform_configurations.x.thread[0]", text: "one" },
      { field: "platform_configurations.x.thread[1]", text: "two" },
      { field: "platform_configurations.x.thread[2]", text: "three" },
      { field: "platform_configurations.x.poll.options[0]", text: "yes" },
      { field: "platform_configurations.x.poll.options[1]", text: "no" },
      { field: "platform_configurations.x.custom_note", text: "unknown key" },
      { field: "platform_configurations.x.nested.deep[0].text", text: "deeper" },
      { field: "platform_configurations.threads.gif_id", text: "https://giphy.com/gifs/abc" },
      { field: "platform_configurations.threads.topic_tag", text: "news" },
      { field: "platform_configurations.pinterest.title", text: "Pin" },
      { field: "platform_configurations.pinterest.link", text: "https://example.com" },
      { field: "platform_configurations.linkedin.document_title", text: "Deck" }
    ])
  })

  it("leaves out a null caption and empty texts", () => {
    expect(outboundTexts({ caption: null, signature: "", platformConfigurations: { x: { first_comment: "  " } } })).toEqual([])
  })
})
