import { Schema } from "effect"

export const platforms = [
  "x",
  "instagram",
  "facebook",
  "threads",
  "pinterest",
  "tiktok",
  "youtube",
  "linkedin",
  "bluesky"
] as const

export const Platform = Schema.Literal(...platforms)
export type Platform = typeof Platform.Type

export const isPlatform = (value: string): value is Platform => (platforms as ReadonlyArray<string>).includes(value)

/** Surfaces a post can take beyond the plain feed. */
export const Placement = Schema.Literal("reels", "stories", "timeline")
export type Placement = typeof Placement.Type
