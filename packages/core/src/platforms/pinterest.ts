import { Option, Schema } from "effect"
import type { SocialAccount } from "../Account.js"
import type { Violation } from "../Errors.js"
import type { KnownBoard } from "../ports/PinterestBoards.js"
import { captionLength } from "./CaptionLength.js"
import { configurationSchema, everyRoute, list, mediaRules, optionField, type PlatformModule, refuse, text, toggle } from "./PlatformModule.js"

const options = {
  // Pinterest API v5 pins/create: title up to 100 characters.
  title: text("The pin title.", { text: { max: 100, noun: "a pin title" } }),
  board_ids: list(
    Schema.Array(Schema.String),
    "Boards to pin to, by id (GET /posting-rules lists them); each board gets its own pin. Without it the pin lands on the account's default board, its first eligible one.",
    {
      check: (boards, target, field) =>
        boards.flatMap((board, index) => board.trim() === "" ? [refuse(`${field}[${index}]`, target.ref, "a board id cannot be empty")] : [])
    }
  ),
  link: text("Where the pin leads: an http or https URL.", { text: { max: 2048, noun: "the link", format: "url" } }),
  // Pinterest API v5 (5.23.0) takes no AI label on a pin: it labels AI images itself from their metadata.
  is_ai_generated: toggle(
    "Asks for the pin to be labelled AI-generated. Pinterest's API takes no such label (Pinterest labels AI images from their metadata), so the receipt says it was left behind."
  ),
  // Beyond the contract's keys; Pinterest's PinCreate alt_text, up to 500 characters.
  alt_text: text("The pin's alt text; without it, the first image's alt_text when it fits.", { text: { max: 500, noun: "the alt text" } })
}

export const PinterestConfiguration = configurationSchema(options)

/**
 * board_ids checked against the account's boards as Herald last read them: a board that is not
 * the account's, or cannot take a pin, is refused naming the board and the account. With no
 * list read yet there is nothing to check against, and Pinterest judges the board at publish.
 */
export const boardRefusals = (
  account: SocialAccount,
  ref: string,
  boardIds: ReadonlyArray<string>,
  known: Option.Option<ReadonlyArray<KnownBoard>>
): ReadonlyArray<Violation> =>
  Option.match(known, {
    onNone: () => [],
    onSome: (boards) =>
      boardIds.flatMap((id, index): ReadonlyArray<Violation> => {
        const board = boards.find((entry) => entry.id === id.trim())
        const field = `${optionField("pinterest", "board_ids")}[${index}]`
        if (board === undefined) return [refuse(field, ref, `board ${id} is not a board of ${ref} (@${account.username})`)]
        if (!board.eligible) return [refuse(field, ref, `board ${id} (${board.name}) of ${ref} cannot take a pin: ${board.reason ?? "not eligible"}`)]
        return []
      })
  })

export const pinterest: PlatformModule = {
  look: { name: "Pinterest", color: "#e60023" },
  // The Pin `description` of Pinterest API v5 pins/create (the title is separate).
  caption: { ceiling: 500, length: captionLength.pinterest, optional: false },
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
  // Pin analytics: IMPRESSION, TOTAL_REACTIONS, TOTAL_COMMENTS, SAVE (and clicks beside them).
  metrics: ["views", "likes", "comments", "saves"],
  livePost: (_author, _placement, ids) => {
    const id = ids.digits(18)
    return { id, url: `https://www.pinterest.com/pin/${id}/` }
  }
}
