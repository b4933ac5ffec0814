import { Schema } from "effect"
import { textLength } from "../CaptionSignature.js"
import type { Media } from "../Media.js"
import { captionLength } from "./CaptionLength.js"
import { configurationSchema, everyRoute, mediaRules, optionField, type PlatformModule, refuse, select, toggle } from "./PlatformModule.js"

/** videos resource, status.privacyStatus. */
export const YoutubePrivacyStatus = Schema.Literal("public", "unlisted", "private")

/**
 * The categories a video can be filed under (videoCategories.list, assignable ones), by id, the
 * value snippet.categoryId takes.
 */
export const youtubeCategories = {
  "1": "Film & Animation",
  "2": "Autos & Vehicles",
  "10": "Music",
  "15": "Pets & Animals",
  "17": "Sports",
  "19": "Travel & Events",
  "20": "Gaming",
  "22": "People & Blogs",
  "23": "Comedy",
  "24": "Entertainment",
  "25": "News & Politics",
  "26": "Howto & Style",
  "27": "Education",
  "28": "Science & Technology",
  "29": "Nonprofits & Activism"
} as const

export const YoutubeCategoryId = Schema.Literal(...(Object.keys(youtubeCategories) as [keyof typeof youtubeCategories, ...Array<keyof typeof youtubeCategories>]))

/** YouTube's own name for a category id. */
export const youtubeCategoryName = (id: string): string | undefined => (youtubeCategories as Record<string, string>)[id]

const options = {
  has_paid_product_placement: toggle("Discloses paid product placement; set at publish, cannot be added later."),
  contains_synthetic_media: toggle("Discloses realistic altered or synthetic content; set at publish, cannot be added later."),
  privacy_status: select(
    YoutubePrivacyStatus,
    "Who can watch: public, unlisted (anyone with the link) or private. Apps Google has not audited upload private videos only.",
    { default: "public" }
  ),
  category_id: select(
    YoutubeCategoryId,
    `The video's category: ${Object.entries(youtubeCategories).map(([id, name]) => `${id} ${name}`).join(", ")}.`,
    { default: "22" }
  )
}

export const YoutubeConfiguration = configurationSchema(options)

/** The videos resource's ceilings, counted as YouTube counts them. */
export const youtubeText = {
  /** snippet.title: 100 characters. */
  titleChars: 100,
  /** snippet.description: 5000 bytes (UTF-8). */
  descriptionBytes: 5000
} as const

/**
 * A video's title: the first line of what the account prints (the caption, or
 * platform_configurations.youtube.caption), as YouTube takes no separate title through Herald.
 */
export const youtubeTitle = (text: string): string => text.split(/\r?\n/).map((line) => line.trim()).find((line) => line !== "") ?? ""

/** The longest video YouTube files as a Short (uploads since 2024-10-15), in seconds. */
export const shortMaxSeconds = 180

/** A Short: a square or vertical video of at most three minutes (YouTube has no flag for it). */
export const isShort = (media: Media): boolean =>
  media.kind === "video" && media.durationSeconds !== null && media.durationSeconds <= shortMaxSeconds &&
  media.width !== null && media.height !== null && media.height >= media.width

/**
 * The YouTube Data API's quota (developers.google.com/youtube/v3/determine_quota_cost): units
 * per call and the daily allocation of a Google Cloud project, reset at midnight Pacific time.
 * The daily allocation and the upload's cost can be set per deployment (docs/networks/youtube.md).
 */
export const youtubeQuota = {
  dailyUnits: 10_000,
  /** videos.insert */
  upload: 1_600,
  /** thumbnails.set */
  thumbnail: 50,
  /** videos.delete */
  delete: 50,
  /** videos.list, channels.list */
  list: 1,
  timeZone: "America/Los_Angeles"
} as const

export const youtube: PlatformModule = {
  look: { name: "YouTube", color: "#ff0000" },
  // The caption is the video's description (its first line also the title).
  caption: { ceiling: youtubeText.descriptionBytes, length: captionLength.youtube, optional: false, unit: "bytes" },
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
  rules: [
    (target) => {
      if (target.text === null) return []
      const field = target.draft.platformConfigurations.youtube?.caption?.trim() ? optionField("youtube", "caption") : "caption"
      const title = youtubeTitle(target.text)
      const problems = []
      if (textLength(title) > youtubeText.titleChars) {
        problems.push(refuse(
          field,
          target.ref,
          `youtube takes the caption's first line as the video title, at most ${youtubeText.titleChars} characters, and it has ${textLength(title)}; put a shorter first line`
        ))
      }
      if (/[<>]/.test(target.text)) {
        problems.push(refuse(field, target.ref, "youtube refuses < and > in a video's title and description; leave them out"))
      }
      return problems
    }
  ],
  metrics: ["views", "likes", "comments"],
  livePost: (_author, _placement, ids) => {
    const id = ids.code(11)
    return { id, url: `https://www.youtube.com/watch?v=${id}` }
  }
}
