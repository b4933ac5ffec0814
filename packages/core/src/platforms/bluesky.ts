import { configurationSchema, everyRoute, mediaRules, type PlatformModule } from "./PlatformModule.js"

const options = {}

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" })

/** Bluesky counts user-perceived characters (a flag or a family emoji is one), not code points. */
export const graphemeLength = (text: string): number => {
  let count = 0
  for (const _ of graphemes.segment(text)) count++
  return count
}

export const BlueskyConfiguration = configurationSchema(options)

export const bluesky: PlatformModule = {
  look: { name: "Bluesky", color: "#1185fe" },
  // The app.bsky.feed.post lexicon, text maxGraphemes 300.
  caption: { ceiling: 300, length: graphemeLength, optional: false },
  media: mediaRules({
    // app.bsky.embed.images maxLength 4.
    max: 4,
    required: false,
    // Bluesky video posts up to 3 minutes.
    videoSeconds: 180,
    altText: true
  }),
  placements: [],
  routes: everyRoute(),
  options,
  rules: [],
  metrics: ["likes", "comments", "shares"],
  livePost: (author, _placement, ids) => {
    const id = ids.tid()
    return { id, url: `https://bsky.app/profile/${author}/post/${id}` }
  }
}
