import { platforms } from "../Platform.js"
import { type PlatformConfigurations, platformRegistry } from "../platforms/Registry.js"

/** A text the post would publish, with the path of the field it came from. */
export interface OutboundText {
  readonly field: string
  readonly text: string
}

/**
 * Keys of platform_configurations whose values are machine values, never published as text:
 * placement and every select of a platform module (reply_settings, reply_control, privacy_status),
 * and ids (board_ids, and any key ending in _id or _ids). gif_id is the exception: on threads it is
 * the GIF the post shows, i.e. a link, so it goes through the link policy with the rest.
 * Booleans and numbers are skipped by type. Every other string, under any key, known or not,
 * and at any depth of objects and arrays, is outbound text.
 */
const machineKeys = new Set([
  "placement",
  ...platforms.flatMap((platform) =>
    Object.entries(platformRegistry[platform].options).flatMap(([key, option]) => option.kind === "select" ? [key] : [])
  )
])
const textIdKeys = new Set(["gif_id"])

export const isMachineKey = (key: string): boolean =>
  machineKeys.has(key) || (/_ids?$/.test(key) && !textIdKeys.has(key))

const collect = (value: unknown, field: string, into: Array<OutboundText>): void => {
  if (typeof value === "string") {
    into.push({ field, text: value })
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => collect(item, `${field}[${index}]`, into))
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (!isMachineKey(key)) collect(item, `${field}.${key}`, into)
    }
  }
}

/**
 * Every text a post sends out: the caption, the project signature, and each text inside
 * platform_configurations with its path (platform_configurations.x.thread[2],
 * platform_configurations.x.poll.options[0]). Empty texts are left out: they cannot break a rule.
 */
export const outboundTexts = (input: {
  readonly caption: string | null
  readonly signature: string
  readonly platformConfigurations: PlatformConfigurations
}): ReadonlyArray<OutboundText> => {
  const texts: Array<OutboundText> = []
  if (input.caption !== null) texts.push({ field: "caption", text: input.caption })
  texts.push({ field: "signature", text: input.signature })
  collect(input.platformConfigurations, "platform_configurations", texts)
  return texts.filter(({ text }) => text.trim() !== "")
}
