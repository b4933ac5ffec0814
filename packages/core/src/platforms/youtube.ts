import { textLength } from "../CaptionSignature.js"
import { configurationSchema, everyRoute, mediaRules, type PlatformModule, toggle } from "./PlatformModule.js"

const options = {
  has_paid_product_placement: toggle("Discloses paid product placement; set at publish, cannot be added later."),
  contains_synthetic_media: toggle("Discloses realistic altered or synthetic content; set at publish, cannot be added later.")
}

export const YoutubeConfiguration = configurationSchema(options)

export const youtube: PlatformModule = {
  look: { name: "YouTube", color: "#ff0000" },
  // YouTube Data API, videos resource: snippet.description at most 5000 bytes; we count
  // characters, so a description heavy in multi-byte characters can still be refused there.
  caption: { ceiling: 5000, length: textLength, optional: false },
  media: mediaRules({
    // One video per upload (videos.insert).
    max: 1,
    required: true,
    videoOnly: true,
    // 12 hours for verified channels (unverified channels stop at 15 min at YouTube).
    videoSeconds: 43200
  }),
  placements: [],
  routes: everyRoute(),
  options,
  rules: [],
  metrics: ["views", "likes", "comments"],
  livePost: (_author, _placement, ids) => {
    const id = ids.code(11)
    return { id, url: `https://www.youtube.com/watch?v=${id}` }
  }
}
