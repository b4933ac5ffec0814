import { Schema } from "effect"
import { textLength } from "../CaptionSignature.js"
import { configurationSchema, everyRoute, list, mediaRules, type PlatformModule, refuse, text, toggle } from "./PlatformModule.js"

const options = {
  // Pinterest API v5 pins/create: title up to 100 characters.
  title: text("The pin title.", { text: { max: 100, noun: "a pin title" } }),
  board_ids: list(Schema.Array(Schema.String), "Boards to pin to; without it the pin lands on the account's default board.", {
    check: (boards, target, field) =>
      boards.flatMap((board, index) => board.trim() === "" ? [refuse(`${field}[${index}]`, target.ref, "a board id cannot be empty")] : [])
  }),
  link: text("Where the pin leads: an http or https URL.", { text: { max: 2048, noun: "the link", format: "url" } }),
  is_ai_generated: toggle("Labels the pin as AI-generated; set at publish, cannot be added later.")
}

export const PinterestConfiguration = configurationSchema(options)

export const pinterest: PlatformModule = {
  look: { name: "Pinterest", color: "#e60023" },
  // The Pin `description` of Pinterest API v5 pins/create (the title is separate).
  caption: { ceiling: 500, length: textLength, optional: false },
  media: mediaRules({
    // A carousel Pin holds 2 to 5 images.
    max: 5,
    required: true,
    // Video Pins 4 s to 15 min.
    videoSeconds: 900
  }),
  placements: [],
  routes: everyRoute(),
  options,
  rules: [],
  metrics: ["views", "comments", "saves"],
  livePost: (_author, _placement, ids) => {
    const id = ids.digits(18)
    return { id, url: `https://www.pinterest.com/pin/${id}/` }
  }
}
