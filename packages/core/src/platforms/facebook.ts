import { captionLength } from "./CaptionLength.js"
import { configurationSchema, mediaRules, type PlatformModule, text } from "./PlatformModule.js"

const options = {
  // Beyond the contract: the Page feed's link, shown as a preview card (Pages API, "Posts").
  link: text("A link shown as a preview card; only on a timeline post with no media.", {
    text: { max: 2048, noun: "a link", format: "url" },
    exceptPlacement: ["reels", "stories"],
    refuse: (_, target) => target.draft.media.length > 0 ? "a link rides only a post with no media" : null
  })
}

export const FacebookConfiguration = configurationSchema(options)

export const facebook: PlatformModule = {
  look: { name: "Facebook", color: "#1877f2" },
  // The Page feed `message` limit Facebook engineering set (ZDNet, 2011) and that publishers still
  // document (Ayrshare and Upload-Post "Facebook character limits").
  caption: { ceiling: 63206, length: captionLength.facebook, optional: false },
  media: mediaRules({
    // Multi-photo Page posts; Herald sends up to 10 attached photos.
    max: 10,
    required: false,
    // Page videos up to 240 minutes (Pages API, video specifications: 14,400 seconds).
    videoSeconds: 14400,
    // Facebook will not post images and a video together through an app (contract).
    leavesBehind: ({ images, videos }) =>
      videos.length === 1 && images.length > 0
        ? {
          sent: videos,
          left: images,
          reason: "facebook does not post photos and a video together through an app; the video went"
        }
        : null
  }),
  placements: ["reels", "stories", "timeline"],
  routes: { direct: [], facebook_login: [], aggregator: [], aggregator_login: [], simulator: ["reel_music"] },
  options,
  rules: [],
  metrics: ["views", "likes", "comments", "shares", "reach"],
  livePost: (author, placement, ids) => {
    const id = ids.digits(16)
    return {
      id,
      url: placement === "reels"
        ? `https://www.facebook.com/reel/${id}`
        : placement === "stories"
        ? `https://www.facebook.com/stories/${author}/${id}`
        : `https://www.facebook.com/${author}/posts/${id}`
    }
  }
}
