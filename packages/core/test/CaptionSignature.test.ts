import { describe, expect, it } from "@effect/vitest"
import { appendSignature, signatureLength, textLength } from "../src/CaptionSignature.js"

describe("Signature", () => {
  it("counts code points, so an emoji outside the BMP is one character", () => {
    expect(textLength("hello")).toBe(5)
    expect(textLength("🚀🚀")).toBe(2)
    expect("🚀🚀".length).toBe(4)
    expect(textLength("")).toBe(0)
  })

  it("charges the blank-line separator to the signature", () => {
    expect(signatureLength("")).toBe(0)
    expect(signatureLength("— Acme")).toBe(2 + 6)
    expect(signatureLength("🚀 Acme")).toBe(2 + 6)
  })

  it("appends after a blank line, and leaves the text alone without a signature", () => {
    expect(appendSignature("Launch day", "— Acme")).toBe("Launch day\n\n— Acme")
    expect(appendSignature("Launch day", "")).toBe("Launch day")
    expect(textLength(appendSignature("Launch day", "— Acme"))).toBe(textLength("Launch day") + signatureLength("— Acme"))
  })
})
