import { Schema } from "effect"
import { captionLength } from "./CaptionLength.js"
import type { Violation } from "../Errors.js"
import {
  configurationSchema,
  everyRoute,
  mediaRules,
  optionField,
  type PlatformModule,
  refuse,
  select,
  type Target,
  text,
  toggle
} from "./PlatformModule.js"

/** Threads API, Posts, Limitations: "Text posts are limited to 500 characters." */
const ceiling = 500

/** A poll option: 1 to 25 characters. */
const pollOption = () =>
  text("Poll options fill in order from a, at least two; a poll rides only a post with no media.", {
    text: { min: 1, max: 25, noun: "a poll option" }
  })

export const ThreadsReplyControl = Schema.Literal("everyone", "accounts_you_follow", "mentioned_only")

const options = {
  // A topic tag is 1 to 50 characters, without periods or ampersands.
  topic_tag: text("One word, without # or periods or ampersands.", {
    text: { max: 50, noun: "a topic tag" },
    refuse: (tag) =>
      tag.includes("#")
        ? "a topic tag is written without #"
        : /\s/.test(tag) || tag === ""
        ? "a topic tag is one word"
        : /[.&]/.test(tag)
        ? "a topic tag cannot contain periods or ampersands"
        : null
  }),
  reply_control: select(ThreadsReplyControl, "Who may reply."),
  poll_option_a: pollOption(),
  poll_option_b: pollOption(),
  poll_option_c: pollOption(),
  poll_option_d: pollOption(),
  gif_id: text("A GIF from a GIF-hosting site; only on a post with no media and no poll."),
  crosspost_ig_story: toggle("Also shares the post to the linked Instagram story."),
  // Beyond the contract: Threads' link_attachment, a preview card for a link (Posts, "Links").
  link_attachment: text("A link shown as a preview card; only on a post with no media.", {
    text: { max: 2048, noun: "a link attachment", format: "url" }
  })
}

export const ThreadsConfiguration = configurationSchema(options)

const pollKeys = ["poll_option_a", "poll_option_b", "poll_option_c", "poll_option_d"] as const

const field = (key: string) => optionField("threads", key)

const pollAndGifRules = (target: Target): ReadonlyArray<Violation> => {
  const configuration = target.draft.platformConfigurations.threads
  if (configuration === undefined) return []
  const { ref } = target
  const hasMedia = target.draft.media.length > 0
  const violations: Array<Violation> = []
  const given = pollKeys.map((key) => configuration[key] !== undefined)
  const isPoll = given.some(Boolean)
  if (isPoll) {
    // Options fill from a in order, so a..b is the smallest poll and no letter is skipped.
    pollKeys.forEach((key, index) => {
      if (configuration[key] === undefined && (index < 2 || given.slice(index + 1).some(Boolean))) {
        violations.push(refuse(field(key), ref, `a poll fills its options in order from poll_option_a and needs at least two; ${key} is missing`))
      }
    })
    if (hasMedia) violations.push(refuse(field("poll_option_a"), ref, "a poll rides only a post with no media"))
  }
  if (configuration.link_attachment !== undefined && hasMedia) {
    violations.push(refuse(field("link_attachment"), ref, "a link attachment rides only a post with no media"))
  }
  if (configuration.gif_id !== undefined) {
    if (hasMedia) violations.push(refuse(field("gif_id"), ref, "a GIF rides only a post with no media"))
    if (isPoll) violations.push(refuse(field("gif_id"), ref, "a post carries a GIF or a poll, not both"))
  }
  return violations
}

export const threads: PlatformModule = {
  look: { name: "Threads", color: "#101010" },
  caption: { ceiling, length: captionLength.threads, optional: false },
  media: mediaRules({
    // Threads carousel posts take up to 20 images and videos.
    max: 20,
    required: false,
    // Threads API media specifications, video up to 5 minutes.
    videoSeconds: 300,
    mixes: true,
    carouselVideos: true
  }),
  // Threads takes reels (a video post) and timeline (its default feed) but has no stories.
  placements: ["reels", "timeline"],
  routes: everyRoute(),
  options,
  rules: [pollAndGifRules],
  metrics: ["views", "likes", "comments", "shares"],
  livePost: (author, _placement, ids) => {
    const id = ids.code(11)
    return { id, url: `https://www.threads.net/@${author}/post/${id}` }
  }
}
