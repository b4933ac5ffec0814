import { describe, expect, it } from "@effect/vitest"
import { Option, Schema } from "effect"
import type { ConnectionRoute } from "../src/Account.js"
import type { Platform } from "../src/Platform.js"
import { AccountPostingRules, AccountView, postingRulesFor, toAccountView } from "../src/PostingRules.js"
import { account } from "./RuleFixtures.js"

const keysOf = (platform: Platform, route: ConnectionRoute = "direct") => {
  const target = account(platform, route)
  return postingRulesFor(target, [target], "", Option.none()).options.map((option) => option.key)
}

describe("toAccountView", () => {
  it("carries the ref, route, limits and capabilities, and encodes to the wire", () => {
    const instagram = account("instagram", "aggregator")
    const row = toAccountView(instagram, [instagram], "— Acme")
    expect(row).toMatchObject({
      id: instagram.id,
      platform: "instagram",
      username: "acme",
      status: "active",
      ref: "instagram:acme",
      route: "aggregator",
      limits: { caption_chars: 2200, caption_chars_available: 2192 },
      can: { first_comment: true }
    })
    expect(Schema.decodeUnknownSync(AccountView)(Schema.encodeSync(AccountView)(row))).toEqual(row)
  })

  it("uses the id as ref when the username is duplicated on its platform", () => {
    const first = account("x", "direct", "shop")
    const second = account("x", "direct", "shop")
    const other = account("bluesky", "direct", "shop")
    const all = [first, second, other]
    expect(all.map((target) => toAccountView(target, all, "").ref)).toEqual([first.id, second.id, "bluesky:shop"])
  })
})

describe("postingRulesFor", () => {
  it.each([
    ["x", ["caption", "first_comment", "thread", "reply_settings", "poll"]],
    ["facebook", ["caption", "placement", "link"]],
    ["bluesky", ["caption"]],
    ["threads", ["caption", "placement", "topic_tag", "reply_control", "poll_option_a", "poll_option_b", "poll_option_c", "poll_option_d", "gif_id", "crosspost_ig_story", "link_attachment"]],
    ["pinterest", ["caption", "title", "board_ids", "link", "is_ai_generated", "alt_text"]],
    ["tiktok", ["caption", "is_brand_content", "is_organic_brand_content", "is_ai_generated", "privacy_status", "disable_comment", "disable_duet", "disable_stitch"]],
    ["youtube", ["caption", "has_paid_product_placement", "contains_synthetic_media", "privacy_status", "category_id"]]
  ] as const)("%s accepts the common keys and its own", (platform, keys) => {
    expect(keysOf(platform)).toEqual(keys)
  })

  it("leaves out instagram's first_comment where the route would refuse the post", () => {
    expect(keysOf("instagram", "direct")).not.toContain("first_comment")
    expect(keysOf("instagram", "aggregator")).toContain("first_comment")
    const target = account("instagram", "aggregator")
    const firstComment = postingRulesFor(target, [target], "", Option.none()).options.find((option) => option.key === "first_comment")
    expect(firstComment).toMatchObject({ kind: "textarea", max_length: 2200, except_placement: ["stories"] })
  })

  it("shows linkedin's document_title on its routes, and on no other platform's", () => {
    expect(keysOf("linkedin", "direct")).toEqual(["caption", "document_title"])
    expect(keysOf("linkedin", "aggregator")).toEqual(["caption", "document_title"])
    expect(keysOf("x", "direct")).not.toContain("document_title")
  })

  it("limits placement to the route's placements and gates the caption off stories", () => {
    const target = account("threads")
    const rules = postingRulesFor(target, [target], "— Acme", Option.none())
    expect(rules.options.find((option) => option.key === "placement")).toMatchObject({ kind: "select", values: ["reels", "timeline"], default: "timeline" })
    expect(rules.options.find((option) => option.key === "caption")).toMatchObject({ max_length: 500 - 8, except_placement: null })
    const instagram = account("instagram")
    const caption = postingRulesFor(instagram, [instagram], "", Option.none()).options.find((option) => option.key === "caption")
    expect(caption?.except_placement).toEqual(["stories"])
  })

  it("carries boards on pinterest only: the list with the default marked, or null when no lookup succeeded", () => {
    const pinterest = account("pinterest")
    const boards = Option.some([
      { id: "7", name: "Archive", eligible: false, reason: "archived" },
      { id: "8", name: "Recipes", eligible: true, reason: null },
      { id: "9", name: "Travel", eligible: true, reason: null }
    ])
    expect(postingRulesFor(pinterest, [pinterest], "", boards).boards).toEqual([
      { id: "7", name: "Archive", eligible: false, reason: "archived", default: false },
      { id: "8", name: "Recipes", eligible: true, default: true },
      { id: "9", name: "Travel", eligible: true, default: false }
    ])
    expect(postingRulesFor(pinterest, [pinterest], "", Option.none()).boards).toBe(null)
    expect("boards" in postingRulesFor(pinterest, [pinterest], "", Option.none())).toBe(true)
    const x = account("x")
    expect("boards" in postingRulesFor(x, [x], "", boards)).toBe(false)
  })

  it.each(["x", "instagram", "facebook", "threads", "pinterest", "tiktok", "youtube", "linkedin", "bluesky"] as const)(
    "%s rules encode to the wire schema",
    (platform) => {
      const target = account(platform, "simulator")
      const rules = postingRulesFor(target, [target], "— Acme", platform === "pinterest" ? Option.some([]) : Option.none())
      expect(Schema.decodeUnknownSync(AccountPostingRules)(Schema.encodeSync(AccountPostingRules)(rules))).toEqual(rules)
    }
  )
})
