/**
 * The init bodies of one delivery (Content Posting API, Direct Post): a video's post_info and
 * source_info (FILE_UPLOAD in chunks, or PULL_FROM_URL from Herald's media URL), or a photo
 * post's (PULL_FROM_URL only, as TikTok takes photos), each Herald option as TikTok's field.
 */
import type { Media, PublishRequest, TiktokConfiguration } from "@herald/core"
import type { CreatorInfo } from "./TiktokCreator.js"

type Configuration = typeof TiktokConfiguration.Type

export const configurationOf = (request: PublishRequest) => (request.configuration ?? {}) as Configuration

/**
 * The audience asked for; unset, SELF_ONLY (the module's advertised default): the one level
 * TikTok offers every creator, so a post never goes public that nobody chose to make public.
 */
export const privacyOf = (configuration: Configuration): string => configuration.privacy_status ?? "SELF_ONLY"

/** The options both kinds of post take, with what the creator has turned off kept off. */
const common = (configuration: Configuration, info: CreatorInfo) => ({
  privacy_level: privacyOf(configuration),
  disable_comment: info.comment_disabled || configuration.disable_comment === true,
  brand_content_toggle: configuration.is_brand_content === true,
  brand_organic_toggle: configuration.is_organic_brand_content === true
})

/** Bytes per chunk past which a video is sent in several (TikTok: 5 to 64 MB a chunk, MB read as decimal). */
export const singleChunkMax = 64_000_000
/** The chunk size of a video sent in several: within TikTok's 5 to 64 MB; the last chunk takes the remainder. */
export const chunkSize = 10_000_000

/** How TikTok is told the file will arrive: chunk_size, and total_chunk_count = floor(size / chunk_size). */
export const chunkPlan = (size: number) => {
  const chunk = size <= singleChunkMax ? size : chunkSize
  return { video_size: size, chunk_size: chunk, total_chunk_count: Math.max(1, Math.floor(size / chunk)) }
}
export type ChunkPlan = ReturnType<typeof chunkPlan>

/** The byte range of chunk `index` of the plan (the last one runs to the end of the file). */
export const chunkRange = (plan: ChunkPlan, index: number) => ({
  first: index * plan.chunk_size,
  last: index === plan.total_chunk_count - 1 ? plan.video_size - 1 : (index + 1) * plan.chunk_size - 1
})

export type VideoSource =
  | { readonly source: "FILE_UPLOAD"; readonly plan: ChunkPlan }
  | { readonly source: "PULL_FROM_URL"; readonly url: string }

export const videoInit = (request: PublishRequest, video: Media, info: CreatorInfo, from: VideoSource) => {
  const configuration = configurationOf(request)
  return {
    post_info: {
      ...(request.text === null ? {} : { title: request.text }),
      ...common(configuration, info),
      disable_duet: info.duet_disabled || configuration.disable_duet === true,
      disable_stitch: info.stitch_disabled || configuration.disable_stitch === true,
      ...(video.thumbnailTimestampMs === null ? {} : { video_cover_timestamp_ms: video.thumbnailTimestampMs }),
      is_aigc: configuration.is_ai_generated === true
    },
    source_info: from.source === "FILE_UPLOAD" ? { source: "FILE_UPLOAD", ...from.plan } : { source: "PULL_FROM_URL", video_url: from.url }
  }
}

/** A photo post's title takes 90 UTF-16 units: the text's first line, cut there. The text goes whole in the description. */
export const photoTitleMax = 90

const photoTitle = (text: string) => {
  const line = text.split("\n", 1)[0] ?? ""
  return line.length <= photoTitleMax ? line : line.slice(0, photoTitleMax - 1).replace(/[\uD800-\uDBFF]$/, "") + "…"
}

export const photoInit = (request: PublishRequest, urls: ReadonlyArray<string>, info: CreatorInfo) => ({
  media_type: "PHOTO",
  post_mode: "DIRECT_POST",
  post_info: {
    ...(request.text === null ? {} : { title: photoTitle(request.text), description: request.text }),
    ...common(configurationOf(request), info),
    auto_add_music: true
  },
  source_info: { source: "PULL_FROM_URL", photo_images: urls, photo_cover_index: 0 }
})

export const videoUrl = (username: string, postId: string) => `https://www.tiktok.com/@${username}/video/${postId}`
export const profileUrl = (username: string) => `https://www.tiktok.com/@${username}`
