import { captionLength } from "./CaptionLength.js"
import { configurationSchema, everyRoute, mediaRules, type PlatformModule } from "./PlatformModule.js"

const options = {}

export const BlueskyConfiguration = configurationSchema(options)

export const bluesky: PlatformModule = {
  look: { name: "Bluesky", color: "#1185fe" },
  // The app.bsky.feed.post lexicon, text maxGraphemes 300.
  caption: { ceiling: 300, length: captionLength.bluesky, optional: false },
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
