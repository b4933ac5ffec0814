import { DateTime } from "effect"
import { AccountId, MediaId, ProjectId } from "../src/Ids.js"
import { type ConnectionRoute, SocialAccount } from "../src/Account.js"
import { Media, type MediaKind } from "../src/Media.js"
import type { Platform } from "../src/Platform.js"

const projectId = ProjectId.make("00000000-0000-4000-8000-000000000001")
const createdAt = DateTime.unsafeMake("2026-01-01T00:00:00Z")

let counter = 0
const nextUuid = () => `00000000-0000-4000-8000-${(++counter).toString(16).padStart(12, "0")}`

/** A connected account; the username defaults to acme, so refs read platform:acme. */
export const account = (platform: Platform, route: ConnectionRoute = "direct", username = "acme"): SocialAccount =>
  new SocialAccount({ id: AccountId.make(nextUuid()), projectId, platform, username, route, status: "active" })

export const media = (
  kind: MediaKind,
  fields: { readonly durationSeconds?: number; readonly altText?: string; readonly peopleTags?: ReadonlyArray<string> } = {}
): Media =>
  new Media({
    id: MediaId.make(nextUuid()),
    projectId,
    kind,
    mime: kind === "image" ? "image/jpeg" : kind === "video" ? "video/mp4" : "application/pdf",
    bytes: 1024,
    filename: kind === "document" ? "deck.pdf" : null,
    width: kind === "document" ? null : 1080,
    height: kind === "document" ? null : 1350,
    durationSeconds: kind === "video" ? fields.durationSeconds ?? 30 : null,
    codec: kind === "image" ? "mjpeg" : kind === "video" ? "h264" : null,
    altText: fields.altText ?? null,
    peopleTags: fields.peopleTags ?? [],
    thumbnailTimestampMs: null,
    storageKey: `media/${counter}`,
    createdAt
  })

export const images = (count: number): ReadonlyArray<Media> => Array.from({ length: count }, () => media("image"))
