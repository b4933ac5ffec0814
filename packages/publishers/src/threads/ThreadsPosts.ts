/**
 * The container parameters of one delivery (POST /{user-id}/threads, developers.facebook.com/docs/threads/posts):
 * the media type from the media, the text, and each Threads option as Threads' own field.
 */
import type { Media, PublishRequest, ThreadsConfiguration } from "@herald/core"

type Configuration = typeof ThreadsConfiguration.Type

const configurationOf = (request: PublishRequest) => (request.configuration ?? {}) as Configuration

/** A poll's options as poll_attachment's JSON ({ option_a, option_b, option_c?, option_d? }). */
const pollOf = (configuration: Configuration) => {
  const options = {
    option_a: configuration.poll_option_a,
    option_b: configuration.poll_option_b,
    option_c: configuration.poll_option_c,
    option_d: configuration.poll_option_d
  }
  const given = Object.entries(options).filter(([, value]) => value !== undefined)
  return given.length === 0 ? undefined : JSON.stringify(Object.fromEntries(given))
}

/** The fields the options set, on the post's own container (a carousel's, not its items'). */
export const optionFields = (request: PublishRequest): Record<string, string> => {
  const configuration = configurationOf(request)
  const poll = pollOf(configuration)
  const fields: Record<string, string | undefined> = {
    topic_tag: configuration.topic_tag,
    reply_control: configuration.reply_control,
    poll_attachment: poll,
    // GIPHY is the one GIF provider the Threads API takes (Posts, "GIFs").
    gif_attachment: configuration.gif_id === undefined ? undefined : JSON.stringify({ gif_id: configuration.gif_id, provider: "GIPHY" }),
    link_attachment: configuration.link_attachment,
    crossreshare_to_ig: configuration.crosspost_ig_story === true ? "true" : undefined
  }
  return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

export const mediaType = (media: Media): "IMAGE" | "VIDEO" => media.kind === "video" ? "VIDEO" : "IMAGE"

/** One media item's own fields (a single-media post's, or a carousel item's). */
export const mediaFields = (media: Media, url: string): Record<string, string> => ({
  media_type: mediaType(media),
  [media.kind === "video" ? "video_url" : "image_url"]: url,
  ...(media.altText === null ? {} : { alt_text: media.altText })
})

export const postUrl = (username: string, permalink: string | undefined, id: string) =>
  permalink ?? `https://www.threads.net/@${username}/post/${id}`
