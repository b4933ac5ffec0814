import { FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import { littleText } from "../../src/linkedin/LittleText.js"
import { printLittleText } from "./LinkedinFake.js"

// Words, spaces and every character little text reserves, so markup lands everywhere.
const pieces = FastCheck.constantFrom("a", "Zé", "7", " ", "\n", "\\", "|", "{", "}", "@", "[", "]", "(", ")", "<", ">", "#", "*", "_", "~", "#tag", "https://x.example/a_(b)")

describe("little text", () => {
  it("prints every text as written once escaped", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.array(pieces, { maxLength: 40 }).map((parts) => parts.join("")), (text) => {
        // A link runs to the next space, so a backslash glued to one is part of the link.
        FastCheck.pre(!/https?:\/\/\S*\\/.test(text))
        expect(printLittleText(littleText(text))).toBe(text)
      })
    )
  })

  it("escapes markup but leaves hashtags and links whole", () => {
    expect(littleText("(a) @b #tag x#y https://e.example/a_(b)")).toBe("\\(a\\) \\@b #tag x\\#y https://e.example/a_(b)")
  })
})
