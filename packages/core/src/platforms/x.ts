import { Schema } from "effect"
import type { Violation } from "../Errors.js"
import {
  configurationSchema,
  everyRoute,
  list,
  mediaRules,
  optionField,
  type PlatformModule,
  refuse,
  select,
  textarea
} from "./PlatformModule.js"
import { captionLength } from "./CaptionLength.js"

/** 280: the contract's own figure; also the ceiling of a first comment and of each follow-up tweet. */
const ceiling = 280

/** POST /2/tweets media.media_ids maxItems 4 (four images, or one video or GIF). */
const maxMedia = 4

/** POST /2/tweets poll: 2 to 4 options of 1 to 25 characters, open 5 to 10080 minutes (7 days). */
const poll = { options: { min: 2, max: 4 }, optionChars: 25, minutes: { min: 5, max: 10080 } }

export const XReplySettings = Schema.Literal("everyone", "following", "mentioned_users", "subscribers", "verified")

const options = {
  first_comment: textarea("Auto-replied under the tweet.", { text: { max: ceiling, noun: "the first comment" } }),
  thread: list(Schema.Array(Schema.String), "Follow-up tweets chained under the main one; the signature rides the main tweet only.", {
    items: { max: 4, refusal: (count, { max }) => `a thread takes up to ${max} follow-up tweets; this one has ${count}` },
    // The signature rides the main tweet only: follow-ups are counted as written.
    text: { max: ceiling, noun: "a follow-up tweet" },
    check: (thread, target, field) =>
      thread.flatMap((tweet, index) =>
        tweet.trim() === "" ? [refuse(`${field}[${index}]`, target.ref, "a follow-up tweet cannot be empty")] : []
      )
  }),
  reply_settings: select(XReplySettings, "Who may reply."),
  poll: list(
    Schema.Struct({
      options: Schema.Array(Schema.String),
      duration_minutes: Schema.optional(Schema.Int)
    }),
    `{ options: ${poll.options.min} to ${poll.options.max} choices, duration_minutes: ${poll.minutes.min} to ${poll.minutes.max} }; not with media.`,
    {
      itemsAt: "options",
      items: { ...poll.options, refusal: (count, { max, min }) => `a poll takes ${min} to ${max} options; this one has ${count}` },
      text: { min: 1, max: poll.optionChars, noun: "a poll option" },
      check: ({ duration_minutes: minutes }, target, field): ReadonlyArray<Violation> =>
        minutes !== undefined && (minutes < poll.minutes.min || minutes > poll.minutes.max)
          ? [refuse(
            `${field}.duration_minutes`,
            target.ref,
            `a poll runs ${poll.minutes.min} to ${poll.minutes.max} minutes (7 days); ${minutes} is outside`
          )]
          : []
    }
  )
}

export const XConfiguration = configurationSchema(options)

export const x: PlatformModule = {
  look: { name: "X", color: "#000000" },
  caption: { ceiling, length: captionLength.x, optional: true },
  media: mediaRules({
    max: maxMedia,
    required: false,
    // X media upload: video duration 0.5 to 140 seconds.
    videoSeconds: 140,
    altText: true,
    leavesBehind: ({ images, videos }) =>
      videos.length === 0 && images.length > maxMedia
        ? { sent: images.slice(0, maxMedia), left: images.slice(maxMedia), reason: `x takes ${maxMedia} images` }
        : null
  }),
  placements: [],
  // A first comment is a reply under the tweet, possible on every route.
  routes: everyRoute(["first_comment"]),
  options,
  rules: [
    (target) =>
      target.draft.platformConfigurations.x?.poll !== undefined && target.draft.media.length > 0
        ? [refuse(optionField("x", "poll"), target.ref, "x does not attach a poll to a tweet with media")]
        : []
  ],
  metrics: ["views", "likes", "comments", "shares"],
  livePost: (author, _placement, ids) => {
    const id = ids.digits(19)
    return { id, url: `https://x.com/${author}/status/${id}` }
  }
}
