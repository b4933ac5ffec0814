import { describe, expect, it } from "@effect/vitest"
import { graphemeLength } from "../src/platforms/CaptionLength.js"
import { platformRegistry } from "../src/platforms/Registry.js"

describe("Bluesky's caption length", () => {
  it("counts graphemes: a family emoji, a flag and a combining accent are one each", () => {
    expect(graphemeLength("👨‍👩‍👧")).toBe(1)
    expect(graphemeLength("🇫🇷")).toBe(1)
    expect(graphemeLength("e\u0301")).toBe(1)
    expect(graphemeLength("héllo 👋")).toBe(7)
  })

  it("is the length the registry checks Bluesky captions with", () => {
    const text = "👨‍👩‍👧".repeat(300)
    expect(platformRegistry.bluesky.caption.length(text)).toBe(300)
    expect(platformRegistry.bluesky.caption.ceiling).toBe(300)
  })
})
