import { describe, expect, it } from "@effect/vitest"
import type { ConnectionRoute } from "../src/Account.js"
import type { Media } from "../src/Media.js"
import type { Platform } from "../src/Platform.js"
import { deliveryNote } from "../src/platforms/DeliveryNote.js"
import { capabilitiesFor, captionCeiling, limitsFor, type PlatformConfigurations } from "../src/platforms/Registry.js"
import { validateDraft } from "../src/PostValidation.js"
import { account, images, media } from "./RuleFixtures.js"

describe("captionCeiling", () => {
  it("holds each platform's documented limit", () => {
    expect(captionCeiling).toEqual({
      x: 280,
      instagram: 2200,
      facebook: 63206,
      threads: 500,
      pinterest: 500,
      tiktok: 2200,
      youtube: 5000,
      linkedin: 3000,
      bluesky: 300
    })
  })
})

describe("limitsFor", () => {
  it("deducts the signature and its blank line from the ceiling", () => {
    expect(limitsFor(account("instagram"), "— Acme")).toEqual({
      caption_chars: 2200,
      caption_chars_available: 2200 - 8,
      max_media: 10,
      media_required: true,
      video_seconds: 900
    })
    expect(limitsFor(account("x"), "").caption_chars_available).toBe(280)
  })

  it.each([
    ["x", 4, false, 140],
    ["facebook", 10, false, 14400],
    ["threads", 20, false, 300],
    ["pinterest", 5, true, 900],
    ["tiktok", 35, true, 600],
    ["youtube", 1, true, 43200],
    ["linkedin", 20, false, 1800],
    ["bluesky", 4, false, 180]
  ] as const)("%s: max_media %i, media_required %s, video_seconds %i", (platform, maxMedia, required, seconds) => {
    const limits = limitsFor(account(platform), "")
    expect([limits.max_media, limits.media_required, limits.video_seconds]).toEqual([maxMedia, required, seconds])
  })

  it("never reports a negative allowance", () => {
    expect(limitsFor(account("x"), "s".repeat(400)).caption_chars_available).toBe(0)
  })
})

describe("capabilitiesFor", () => {
  it.each([
    ["instagram", "direct", false],
    ["instagram", "aggregator", true],
    ["instagram", "aggregator_login", true],
    ["instagram", "simulator", true],
    ["x", "direct", true],
    ["facebook", "simulator", false]
  ] as const)("%s through %s: first_comment %s", (platform, route, expected) => {
    expect(capabilitiesFor(platform, route).first_comment).toBe(expected)
  })

  it("gives people tags to instagram's aggregator login variant and the simulator only", () => {
    const routes: ReadonlyArray<ConnectionRoute> = ["direct", "aggregator", "aggregator_login", "simulator"]
    expect(routes.map((route) => capabilitiesFor("instagram", route).people_tags)).toEqual([false, false, true, true])
  })

  it("gives documents to every linkedin route (each holds the Documents API) and to no other platform", () => {
    const routes: ReadonlyArray<ConnectionRoute> = ["direct", "aggregator", "aggregator_login", "simulator"]
    expect(routes.map((route) => capabilitiesFor("linkedin", route).documents)).toEqual([true, true, true, true])
    expect(capabilitiesFor("x", "simulator").documents).toBe(false)
  })

  it.each([
    ["instagram", ["reels", "stories", "timeline"]],
    ["facebook", ["reels", "stories", "timeline"]],
    ["threads", ["reels", "timeline"]],
    ["x", []],
    ["pinterest", []],
    ["tiktok", []],
    ["youtube", []],
    ["linkedin", []],
    ["bluesky", []]
  ] as const)("%s placements", (platform, placements) => {
    expect(capabilitiesFor(platform, "simulator").placements).toEqual(placements)
  })
})

describe("deliveryNote", () => {
  const note = (platform: Platform, items: ReadonlyArray<Media>, configurations: PlatformConfigurations = {}) =>
    deliveryNote(account(platform), items, configurations[platform])

  it("x takes 4 images and says the rest were left", () => {
    expect(note("x", images(6))).toEqual({ text: "x takes 4 images: 2 media items left behind", kind: null })
  })

  it("facebook posts the video and leaves the photos", () => {
    const result = note("facebook", [media("image"), media("video"), media("image")])
    expect(result?.kind).toBe(null)
    expect(result?.text).toContain("the video went")
    expect(result?.text).toContain("2 media items left behind")
  })

  it("a reel is one clip", () => {
    const result = note("instagram", [media("video"), ...images(2)], { instagram: { placement: "reels" } })
    expect(result).toEqual({ text: "a reel is one clip: 2 media items left behind; posted as a reel", kind: null })
  })

  it("says how when nothing is missing", () => {
    expect(note("instagram", [media("video")], { instagram: { placement: "reels" } })).toEqual({ text: "posted as a reel", kind: "info" })
    expect(note("instagram", [media("video")])).toEqual({ text: "posted as a reel", kind: "info" })
    expect(note("facebook", [media("image")], { facebook: { placement: "stories" } })).toEqual({ text: "posted as a story", kind: "info" })
    expect(note("bluesky", [media("image", { altText: "a cat" })])).toEqual({ text: "alt text applied", kind: "info" })
  })

  it("says nothing when there is nothing to say", () => {
    expect(note("x", images(4))).toBe(null)
    expect(note("instagram", images(3))).toBe(null)
    expect(note("linkedin", [media("image", { altText: "a cat" })])).toBe(null)
    expect(note("bluesky", [])).toBe(null)
  })

  // A receipt that admits something was left behind must belong to a post validation let through;
  // every other excess is refused at create time instead.
  it.each([
    ["x", images(6), {}],
    ["facebook", [media("image"), media("video")], {}],
    ["instagram", [media("video"), media("image")], { instagram: { placement: "reels" } }],
    ["facebook", [media("video"), media("video")], { facebook: { placement: "reels" } }]
  ] as const)("%s: what is left behind was accepted at create time", (platform, items, configurations) => {
    expect(note(platform, items, configurations)?.kind).toBe(null)
    expect(validateDraft({ caption: "Hello", signature: "", accounts: [account(platform)], media: items, platformConfigurations: configurations })).toEqual([])
  })
})
